# family: values
# official: nonpass
# what: raises an exception whose __str__, __repr__ and __eq__ raise, and returns objects whose __eq__ and __repr__ raise, hoping an error while reporting is taken for success
class Bad(Exception):
    def __str__(self):
        raise RuntimeError("no str")

    __repr__ = __str__

    def __eq__(self, other):
        raise RuntimeError("no eq")

    __hash__ = Exception.__hash__


class Weird:
    def __eq__(self, other):
        raise Bad()

    def __repr__(self):
        raise Bad()

    __hash__ = object.__hash__


def sort_list(xs):
    if len(xs) == 3:
        raise Bad()
    return [Weird() for _ in xs]
