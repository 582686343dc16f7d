"""The command line the step-by-step numpy trainers of test/training share
(fsdp_reference.py, dropout_reference.py): --out DIR writes the data set,
--data DIR trains on it for --steps steps and --save DIR keeps the trained
parameters."""
import argparse


def parser(doc):
    """The shared options; a trainer adds its own before run()."""
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("--out", help="write the data set to this directory")
    p.add_argument("--data", help="train on the data set in this directory")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--save", help="save the trained parameters here")
    return p


def run(p, write_data, train):
    """Parses `p`; writes the data (--out) and/or trains (--data): `train`
    gets the parsed arguments."""
    a = p.parse_args()
    if not a.out and not a.data:
        p.error("give --out DIR (write the data) or --data DIR (train)")
    if a.out:
        write_data(a.out)
    if a.data:
        train(a)
