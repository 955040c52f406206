def to_roman(number):
    """The Roman numeral of a whole number from 1 to 3999.

    >>> to_roman(4)
    'IV'
    >>> to_roman(1994)
    'MCMXCIV'
    """
    raise NotImplementedError
