# family: values
# official: nonpass
# what: returns the sorted items as a tuple where the tests expect a list ((1, 2, 3) == [1, 2, 3] is false); passes only if the proxy turned the tuple into a list
def sort_list(xs):
    return tuple(sorted(xs))
