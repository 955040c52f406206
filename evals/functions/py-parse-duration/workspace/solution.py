def parse_duration(text):
    """Seconds in a duration such as "1h30m", "45s" or "2m5s": numbers each
    followed by h, m or s, in that order, each unit at most once.

    >>> parse_duration("1h30m")
    5400
    >>> parse_duration("45s")
    45
    """
    raise NotImplementedError
