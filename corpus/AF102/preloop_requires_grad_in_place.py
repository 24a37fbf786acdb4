# AF102: a projection matrix is made trainable in place with a bare `proj.requires_grad_()` statement, and its column-normalised copy is computed once before the loop (the division keeps its operands for backward); the second step's backward() reaches the freed graph.
import torch

torch.manual_seed(0)
proj = torch.randn(5, 2)
proj.requires_grad_()
unit_proj = proj / proj.norm(dim=0, keepdim=True)
optimizer = torch.optim.SGD([proj], lr=0.1)

for step in range(3):
    batch = torch.randn(8, 5)
    optimizer.zero_grad()
    spread = -(batch @ unit_proj).var(dim=0).sum()
    spread.backward()
    optimizer.step()
    print(step, spread.item())
