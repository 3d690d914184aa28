# family: values
# official: nonpass
# what: returns booleans (True == 1, False == 0) in place of numbers that are not 0 or 1; passes only if the proxy rebuilt them as other numbers
def sort_list(xs):
    return [True for _ in xs]
