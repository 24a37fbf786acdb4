# ok: each task adapts a head for a few steps, back-propagating `loss` every step, then adds the query loss onto that same name; `loss` is rebound by every task's adaptation, so it never holds more than one task's query graph, and only its value is printed.
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 8)
criterion = nn.CrossEntropyLoss()
adapt_steps = 3


def evaluate_tasks(tasks):
    loss = torch.zeros(1)
    for (support_x, support_y), (query_x, query_y) in tasks:
        head = nn.Linear(8, 3)
        optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
        for _ in range(adapt_steps):
            features = encoder(support_x).detach()
            loss = criterion(head(features), support_y)
            head.zero_grad()
            loss.backward()
            optimizer.step()
        loss += criterion(head(encoder(query_x)), query_y)
        print(f"task query loss {loss.item():.3f}")


tasks = [((torch.randn(6, 4), torch.randint(0, 3, (6,))), (torch.randn(6, 4), torch.randint(0, 3, (6,)))) for _ in range(3)]
evaluate_tasks(tasks)
