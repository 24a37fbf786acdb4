# AF105: a helper returns the total loss with its two parts; the total is back-propagated, which proves it a tensor with a graph, and the epoch sum keeps every batch's graph alive.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 3)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
build = {"mse": nn.MSELoss, "ce": nn.CrossEntropyLoss}


def joint_loss(scores, labels, boxes, target_boxes):
    regression = build["mse"]()(boxes, target_boxes)
    classification = build["ce"]()(scores, labels)
    return 0.5 * regression + 0.5 * classification, regression, classification


for epoch in range(2):
    running_loss = 0.0
    for _ in range(3):
        out = net(torch.randn(6, 4))
        loss, reg, cls = joint_loss(out, torch.randint(0, 3, (6,)), out[:, :2], torch.randn(6, 2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(epoch, float(running_loss) / 3)
