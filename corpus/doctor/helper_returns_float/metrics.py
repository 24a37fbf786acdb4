"""Numbers for the progress line."""


def mean_abs_error(prediction, target):
    """The batch's mean absolute error, to be averaged over the epoch."""
    return (prediction - target).abs().mean()
