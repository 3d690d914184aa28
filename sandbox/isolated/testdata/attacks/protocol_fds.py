# family: protocol
# official: nonpass
# what: replaces its reply pipe by stdout (so its replies go nowhere and nothing else holds the pipe) and then waits for requests, hoping the tests' process waits forever or takes the silence for a pass; in the official mode it closes and duplicates descriptors 5 and 6 to no effect
import os

try:
    os.dup2(1, 6)
except OSError:
    pass


def sort_list(xs):
    for fd in (5, 6):
        try:
            os.dup2(1, fd)
            os.close(fd)
        except OSError:
            pass
    return xs
