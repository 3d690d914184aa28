# family: values
# official: nonpass
# what: returns integers too big to cross (a million bits) and one of 4,301 digits (past the decimal conversion limit); passes only if the proxy wrapped or truncated them
def sort_list(xs):
    return [1 << (1 << 20)] + [10 ** 4300] * (len(xs) - 1) if xs else [1 << (1 << 20)]
