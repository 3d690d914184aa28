# family: values
# official: nonpass
# what: returns a list nested 100,000 deep and a list that holds itself, so encoding or comparing recurses; passes only if a RecursionError were read as success
import sys

sys.setrecursionlimit(10 ** 6)


def sort_list(xs):
    if not xs:
        loop = []
        loop.append(loop)
        return loop
    deep = []
    for _ in range(100000):
        deep = [deep]
    return deep
