def merge_intervals(intervals):
    """Merge overlapping or touching [start, end] intervals; the result is
    sorted by start.

    >>> merge_intervals([[1, 3], [2, 6], [8, 10]])
    [[1, 6], [8, 10]]
    >>> merge_intervals([[5, 7], [1, 5]])
    [[1, 7]]
    """
    raise NotImplementedError
