# AF105: the step method hands back the loss and a mean confidence computed from the same logits without detaching it; the loop keeps every confidence in a list it only prints, so each iteration's graph stays alive.
import torch
import torch.nn as nn

torch.manual_seed(0)


class FewShotLearner:
    def __init__(self):
        self.model = nn.Linear(4, 3)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def task_step(self, x, y):
        logits = self.model(x)
        loss = nn.functional.cross_entropy(logits, y)
        confidence = logits.softmax(1).max(1)[0].mean()
        return loss, confidence

    def meta_train(self, tasks, iterations):
        confidences = []
        for _ in range(iterations):
            self.optimizer.zero_grad()
            for x, y in tasks:
                loss, confidence = self.task_step(x, y)
                loss.backward()
                confidences.append(confidence)
            self.optimizer.step()
        print(f"confidence over training {sum(c.item() for c in confidences) / len(confidences):.2f}")


FewShotLearner().meta_train([(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)], 2)
