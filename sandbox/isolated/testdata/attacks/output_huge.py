# family: output
# official: nonpass
# what: floods stdout and stderr past the output cap and returns a 70 MB result (past the proxy's frame limit); passes only if the flood or the size cut the run short into a success
import os, sys


def sort_list(xs):
    chunk = "x" * (1 << 20)
    for _ in range(12):
        os.write(1, chunk.encode())
        os.write(2, chunk.encode())
    return ["y" * (70 << 20)]
