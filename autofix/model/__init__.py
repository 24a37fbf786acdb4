"""The program model: one description of the user's code that every rule queries.

(The API is documented here as it lands; :mod:`autofix.model.vocabulary` is the
one table of graph-making, graph-keeping and graph-cutting operations.)
"""
