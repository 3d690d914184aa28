# family: socket
# official: nonpass
# what: creates and binds an AF_VSOCK seqpacket socket; the answer is right only if that worked
import socket


def sort_list(xs):
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_SEQPACKET)
    s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
    s.close()
    return sorted(xs)
