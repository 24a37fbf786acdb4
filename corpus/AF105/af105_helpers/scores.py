"""Segmentation scores for the AF105 scripts next to this folder (imported by name or with ``import *``)."""

import torch


def pixel_recall(logits, mask, cut=0.0):
    hit = (logits > cut) & (mask > 0.5)
    return float(hit.sum()) / (float((mask > 0.5).sum()) + 1e-6)


def pixel_precision(logits, mask, cut=0.0):
    hit = (logits > cut) & (mask > 0.5)
    return float(hit.sum()) / (float((logits > cut).sum()) + 1e-6)


def pixel_f1(logits, mask, cut=0.0):
    recall = pixel_recall(logits, mask, cut=cut)
    precision = pixel_precision(logits, mask, cut=cut)
    f1 = 2 * recall * precision / (recall + precision + 1e-6)
    return f1


def soft_overlap(logits, mask):
    probs = torch.sigmoid(logits)
    return (2 * (probs * mask).sum() + 1) / (probs.sum() + mask.sum() + 1)
