def slugify(title):
    """Turn a title into a URL slug: lower case, runs of anything but letters and
    digits become one hyphen, no hyphen at either end.

    >>> slugify("Hello, World!")
    'hello-world'
    >>> slugify("  Temporal   Workflows 101 ")
    'temporal-workflows-101'
    """
    raise NotImplementedError
