def caesar(text, shift):
    """Shift each letter of text by shift places in the alphabet, wrapping
    around and keeping its case; other characters stay as they are.

    >>> caesar("Hello, World!", 3)
    'Khoor, Zruog!'
    >>> caesar("abc", -1)
    'zab'
    """
    raise NotImplementedError
