def word_count(text):
    """Count the words of text, case-insensitively; a word is a run of letters.
    Returns a dict from each lower-case word to its count.

    >>> word_count("The cat and the hat.")
    {'the': 2, 'cat': 1, 'and': 1, 'hat': 1}
    """
    raise NotImplementedError
