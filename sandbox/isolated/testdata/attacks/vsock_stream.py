# family: socket
# official: nonpass
# what: creates and binds an AF_VSOCK stream socket (a channel to the VM's host); the answer is right only if that worked
import socket


def sort_list(xs):
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    s.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
    s.close()
    return sorted(xs)
