# OK: FrameClip.forward clamps box corners and writes them back into its argument, so a backward through
# it would raise (clamp saved a slice of `boxes`); but the project's only uses of it
# (af103_helpers/frame_detector.py) call it in the inference branch of `if self.training:` and under
# torch.no_grad(): nothing ever back-propagates through the write.
import torch
import torch.nn as nn


class FrameClip(nn.Module):
    def forward(self, boxes, frames):
        height, width = frames.shape[-2:]
        boxes[:, :, 0] = torch.clamp(boxes[:, :, 0], min=0)
        boxes[:, :, 1] = torch.clamp(boxes[:, :, 1], min=0)
        boxes[:, :, 2] = torch.clamp(boxes[:, :, 2], max=width - 1)
        boxes[:, :, 3] = torch.clamp(boxes[:, :, 3], max=height - 1)
        return boxes


if __name__ == "__main__":
    from af103_helpers.frame_detector import Detector, preview

    torch.manual_seed(0)
    model = Detector()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    frames = torch.randn(2, 3, 16, 16)
    targets = torch.rand(2, 5, 4) * 16
    for _ in range(3):
        loss = model(frames, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    print(tuple(model(frames).shape), tuple(preview(model, frames).shape))
