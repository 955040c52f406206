def median(numbers):
    """The median of a non-empty list of numbers: the middle one once sorted, or
    the mean of the two middle ones when the count is even.

    >>> median([3, 1, 2])
    2
    >>> median([4, 1, 3, 2])
    2.5
    """
    raise NotImplementedError
