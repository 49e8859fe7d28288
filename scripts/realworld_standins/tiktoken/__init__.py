"""A tiktoken for scripts/realworld.py: nanoGPT's sample.py imports it at the top but uses it only
without a dataset's meta.pkl, which its stand-in dataset has. The real encodings are downloaded
files, which this machine cannot fetch, so asking for one raises."""


def get_encoding(name):
    raise RuntimeError(f"tiktoken stand-in: the {name!r} encoding needs a download")
