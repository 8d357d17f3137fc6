"""Solutions to the exercises of notebook 09 (who bites whom). Try them first!"""

# Exercise 1: the causal mask lets every later word see the first one, but not the other way
# round: the first word looks different from the last, so the model can learn the task.
scheme = "causal"
prediction = "learns"


def ceiling(pairs):
    """Exercise 2: a no-position model answers "a v b" and "b v a" alike: one is wrong."""
    pairs = set(pairs)
    both_ways = sum((o, s) in pairs for s, o in pairs)  # each mirrored pair counted twice
    return (len(pairs) - both_ways / 2) / len(pairs)
