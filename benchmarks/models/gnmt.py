"""A GNMT-like sequence-to-sequence model (after GNMT v2, the paper's GNMTv2 benchmark).

Encoder: embedding, a bidirectional LSTM layer, then three LSTM layers (residual connections from
the third layer on). Decoder: embedding, a first LSTM layer whose outputs query additive
(Bahdanau) attention over the encoder's outputs for all target steps at once (GNMT v2's batched
attention), then three LSTM layers that take [previous output, attention context] (residual from
the third on), and a linear classifier over the vocabulary. Dropout 0.2 between layers; cross
entropy over the target tokens; Adam.

Reduced to fit this CPU: GNMT v2 has hidden size 1024 and a 32k vocabulary; here hidden 512 and
8192 tokens, source and target sentences of 32 tokens, batch 32 (1024 target tokens a step).
"""

NAME, UNIT, DEFAULT_BATCH = "gnmt", "tokens", 32
HIDDEN, VOCAB, SRC_LEN, TGT_LEN, LAYERS = 512, 8192, 32, 32, 4
SIZES = f"hidden {HIDDEN}, vocab {VOCAB}, {LAYERS}+{LAYERS} LSTM layers"
SIZES += f", {SRC_LEN}/{TGT_LEN} tokens, Adam"


def synthetic_batch(batch, rng):
    tgt = rng.integers(0, VOCAB, size=(TGT_LEN + 1, batch), dtype="int64")
    return {
        "src": rng.integers(0, VOCAB, size=(SRC_LEN, batch), dtype="int64"),
        "tgt_in": tgt[:-1].copy(),
        "tgt_out": tgt[1:].copy(),
    }


def build(torch, batch):
    from . import Workload

    nn = torch.nn
    H = HIDDEN

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, H)
            self.bidir = nn.LSTM(H, H, bidirectional=True)
            self.layers = nn.ModuleList(
                [nn.LSTM(2 * H, H)] + [nn.LSTM(H, H) for _ in range(LAYERS - 2)]
            )
            self.dropout = nn.Dropout(0.2)

        def forward(self, src):  # [S, B] -> [S, B, H]
            x, _ = self.bidir(self.dropout(self.embed(src)))
            for i, lstm in enumerate(self.layers):
                y, _ = lstm(self.dropout(x))
                x = x + y if i >= 1 else y
            return x

    class Attention(nn.Module):
        """Additive attention: score(q, k) = v . tanh(W q + U k), softmax over source steps."""

        def __init__(self):
            super().__init__()
            self.query = nn.Linear(H, H, bias=False)
            self.key = nn.Linear(H, H, bias=False)
            self.v = nn.Linear(H, 1, bias=False)

        def forward(self, q, keys):  # q [T, B, H], keys [S, B, H] -> context [T, B, H]
            q = self.query(q).transpose(0, 1).unsqueeze(2)  # [B, T, 1, H]
            k = self.key(keys).transpose(0, 1).unsqueeze(1)  # [B, 1, S, H]
            scores = self.v(torch.tanh(q + k)).squeeze(3)  # [B, T, S]
            weights = torch.softmax(scores, dim=-1)
            return torch.bmm(weights, keys.transpose(0, 1)).transpose(0, 1)

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, H)
            self.first = nn.LSTM(H, H)
            self.attention = Attention()
            self.layers = nn.ModuleList([nn.LSTM(2 * H, H) for _ in range(LAYERS - 1)])
            self.dropout = nn.Dropout(0.2)
            self.classifier = nn.Linear(H, VOCAB)

        def forward(self, tgt, memory):  # [T, B], [S, B, H] -> logits [T, B, VOCAB]
            x, _ = self.first(self.dropout(self.embed(tgt)))
            context = self.attention(x, memory)
            for i, lstm in enumerate(self.layers):
                y, _ = lstm(self.dropout(torch.cat([x, context], dim=2)))
                x = x + y if i >= 1 else y
            return self.classifier(self.dropout(x))

    class GNMT(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = Encoder()
            self.decoder = Decoder()

        def forward(self, src, tgt):
            return self.decoder(tgt, self.encoder(src))

    model = GNMT()
    for p in model.parameters():  # GNMT's initialisation: uniform in [-0.1, 0.1]
        nn.init.uniform_(p, -0.1, 0.1)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss(b):
        logits = model(b["src"], b["tgt_in"])
        return criterion(logits.reshape(-1, VOCAB), b["tgt_out"].reshape(-1))

    return Workload(model, optimizer, loss, TGT_LEN * batch)
