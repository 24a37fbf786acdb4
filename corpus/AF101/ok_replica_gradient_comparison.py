# OK: a model and its replica see the same input; each output gets its own backward (separate graphs), as in DDP parity tests.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
reference = nn.Sequential(nn.Linear(2, 4), nn.CELU(), nn.Linear(4, 2))
replica = copy.deepcopy(reference)
opt_ref = torch.optim.SGD(reference.parameters(), lr=0.1)
opt_rep = torch.optim.SGD(replica.parameters(), lr=0.1)

for iteration in range(3):
    opt_ref.zero_grad()
    opt_rep.zero_grad()
    input_data = torch.rand(5, 2)
    output_ref = reference(input_data)
    output_rep = replica(input_data)
    output_ref.sum().backward()
    output_rep.sum().backward()
    for p_ref, p_rep in zip(reference.parameters(), replica.parameters()):
        assert torch.allclose(p_ref.grad, p_rep.grad)
    opt_ref.step()
    opt_rep.step()
    print(iteration, output_ref.sum().item())
