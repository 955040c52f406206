def chunk(items, size):
    """Split a list into lists of size items; the last one may be shorter.

    >>> chunk([1, 2, 3, 4, 5], 2)
    [[1, 2], [3, 4], [5]]
    >>> chunk([], 3)
    []
    """
    raise NotImplementedError
