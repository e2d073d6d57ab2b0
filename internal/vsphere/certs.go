package vsphere

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/vmware/govmomi/vim25/soap"
)

// untrusted says whether err is a certificate that failed verification (or
// that does not match its GOVC_TLS_KNOWN_HOSTS thumbprint).
func untrusted(err error) bool {
	return soap.IsCertificateUntrusted(err) || strings.Contains(err.Error(), "thumbprint does not match")
}

// certificateError says that host's certificate is not trusted and which
// variables fix that, with the thumbprint the server presents (for the
// user to check before trusting it).
func certificateError(ctx context.Context, host string, err error) error {
	addr := host
	if _, _, serr := net.SplitHostPort(host); serr != nil {
		addr = net.JoinHostPort(host, "443")
	}
	known := "GOVC_TLS_KNOWN_HOSTS=FILE holding the line \"" + addr + " THUMBPRINT\""
	if thumb := presentedThumbprint(ctx, addr); thumb != "" {
		known = fmt.Sprintf("GOVC_TLS_KNOWN_HOSTS=FILE holding the line \"%s %s\" (the SHA-1 thumbprint the server presents now: check it with the vCenter's administrator first)", addr, thumb)
	}
	return fmt.Errorf("the certificate of vCenter %s is not trusted (%v); trust it with GOVC_TLS_CA_CERTS=FILE of the vCenter's CA certificates (https://%s/certs/download.zip has them), or %s, or skip verification with GOVC_INSECURE=1 (then anyone in between could read the password)",
		host, err, host, known)
}

// presentedThumbprint connects to addr without verifying it and returns the
// SHA-1 thumbprint of the certificate it presents ("" when it cannot).
func presentedThumbprint(ctx context.Context, addr string) string {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 10 * time.Second}, Config: &tls.Config{InsecureSkipVerify: true}} // #nosec: read only, to show the thumbprint
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return ""
	}
	defer conn.Close()
	certs := conn.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return ""
	}
	return soap.ThumbprintSHA1(certs[0])
}
