"""Sample functions for "Reason & generate tests" (click the CodeLens above a function)."""


def merge_intervals(intervals):
    """Merge overlapping closed intervals.

    Takes a list of [start, end] pairs (start <= end) in any order and returns the merged
    intervals sorted by start. Touching intervals such as [1, 2] and [2, 3] are merged.
    """
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def is_palindrome(text):
    """Return True when text reads the same backwards, ignoring case and non-alphanumerics."""
    letters = [c.lower() for c in text if c.isalnum()]
    return letters == letters[::-1]


def two_sum(nums, target):
    """Return the indices [i, j] (i < j) of the first pair of numbers adding up to target, or []."""
    seen = {}
    for j, num in enumerate(nums):
        if target - num in seen:
            return [seen[target - num], j]
        seen[num] = j
    return []
