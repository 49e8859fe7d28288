"""NCF (NeuMF, He et al. 2017, as in MLPerf): user and item embeddings feeding a generalised
matrix factorisation branch (elementwise product, 64 factors) and an MLP branch (embeddings of
128 concatenated, then 256 -> 256 -> 128 -> 64 with ReLU), joined by one linear layer to a
logit; binary cross entropy on implicit feedback; Adam with dense embedding gradients
(nn.Embedding's default). MovieLens-20M's sizes: 138,493 users, 26,744 items (31.7M params)."""

NAME, UNIT, DEFAULT_BATCH = "ncf", "samples", 4096
USERS, ITEMS, MF_DIM, MLP = 138_493, 26_744, 64, (256, 256, 128, 64)
SIZES = f"{USERS} users, {ITEMS} items, GMF {MF_DIM}, MLP {'-'.join(map(str, MLP))}, Adam"


def synthetic_batch(batch, rng):
    return {
        "user": rng.integers(0, USERS, size=batch, dtype="int64"),
        "item": rng.integers(0, ITEMS, size=batch, dtype="int64"),
        "label": (rng.random(batch) < 0.2).astype("float32"),  # 1 positive : 4 negatives
    }


def build(torch, batch):
    from . import Workload

    nn = torch.nn

    class NeuMF(nn.Module):
        def __init__(self):
            super().__init__()
            self.mf_user = nn.Embedding(USERS, MF_DIM)
            self.mf_item = nn.Embedding(ITEMS, MF_DIM)
            self.mlp_user = nn.Embedding(USERS, MLP[0] // 2)
            self.mlp_item = nn.Embedding(ITEMS, MLP[0] // 2)
            layers = []
            for a, b in zip(MLP[:-1], MLP[1:]):
                layers += [nn.Linear(a, b), nn.ReLU()]
            self.mlp = nn.Sequential(*layers)
            self.final = nn.Linear(MF_DIM + MLP[-1], 1)
            for e in (self.mf_user, self.mf_item, self.mlp_user, self.mlp_item):
                nn.init.normal_(e.weight, 0.0, 0.01)

        def forward(self, user, item):
            mf = self.mf_user(user) * self.mf_item(item)
            mlp = self.mlp(torch.cat([self.mlp_user(user), self.mlp_item(item)], dim=1))
            return self.final(torch.cat([mf, mlp], dim=1)).squeeze(1)

    model = NeuMF()
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss(b):
        return criterion(model(b["user"], b["item"]), b["label"])

    return Workload(model, optimizer, loss, batch)
