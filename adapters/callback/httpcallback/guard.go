package httpcallback

import (
	"fmt"
	"net/netip"
	"syscall"
)

// refused is a callback address the sender does not dial; its text is the
// attempt's error as the delivery records it.
type refused struct{ msg string }

func (r refused) Error() string { return r.msg }

// carrierNAT is the shared address space of carriers (RFC 6598), private in
// all but name; some clouds answer metadata there.
var carrierNAT = netip.MustParsePrefix("100.64.0.0/10")

// guard checks the address a connection is about to be made to, after name
// resolution: never a link-local, metadata, unspecified or multicast
// address; a loopback or private one only when allowPrivate.
func guard(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return refused{fmt.Sprintf("the callback's address %s is not an IP address", address)}
		}
		ip := ap.Addr().Unmap()
		switch {
		case ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
			ip.IsMulticast() || ip.IsUnspecified():
			return refused{fmt.Sprintf("the callback's address %s is link-local, a metadata service's or not a host's; callbacks never reach it", ip)}
		case !allowPrivate && (ip.IsLoopback() || ip.IsPrivate() || carrierNAT.Contains(ip)):
			return refused{fmt.Sprintf("the callback's address %s is loopback or private; this instance does not call such addresses (CALLBACK_ALLOW_PRIVATE)", ip)}
		}
		return nil
	}
}
