# SPDX-License-Identifier: MIT
from src.range import inclusive_range


def test_inclusive_range():
    assert inclusive_range(1, 3) == [1, 2, 3]


def test_single():
    assert inclusive_range(5, 5) == [5]
