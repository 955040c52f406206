def run_length(text):
    """Run-length encode a string: each run of one character becomes the count
    followed by the character.

    >>> run_length("aaabcc")
    '3a1b2c'
    >>> run_length("")
    ''
    """
    raise NotImplementedError
