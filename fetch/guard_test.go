package fetch

import (
	"context"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestSpecialPurpose(t *testing.T) {
	tests := []struct {
		ip      string
		special bool
	}{
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.168.1.1", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"169.254.169.254", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		{"192.0.0.8", true},
		{"192.0.2.1", true},
		{"198.18.0.1", true},
		{"198.51.100.7", true},
		{"203.0.113.9", true},
		{"192.88.99.1", true},
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.216.34", false},
		{"::1", true},
		{"::", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"ff02::1", true},
		{"2001:db8::1", true},
		{"2001::1", true},           // Teredo
		{"2002:c000:0204::1", true}, // 6to4
		{"64:ff9b:1::1", true},
		{"100::1", true},
		{"::ffff:127.0.0.1", true}, // IPv4-mapped loopback
		{"::ffff:169.254.169.254", true},
		{"::ffff:8.8.8.8", false},
		{"64:ff9b::7f00:1", true},    // NAT64 of 127.0.0.1
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", false},  // NAT64 of 8.8.8.8
		{"::127.0.0.1", true},        // IPv4-compatible
		{"2606:4700:4700::1111", false},
		{"2a00:1450:4001::1", false},
	}
	for _, tt := range tests {
		ip := netip.MustParseAddr(tt.ip)
		got, name := SpecialPurpose(ip)
		if got != tt.special {
			t.Errorf("SpecialPurpose(%s) = %v (%s), want %v", tt.ip, got, name, tt.special)
		}
		if got && name == "" {
			t.Errorf("%s: no block name", tt.ip)
		}
	}
}

func TestParseAllowAddrs(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{"127.0.0.1", []string{"127.0.0.1"}, false},
		{" 127.0.0.1:8080 , 10.0.0.0/8,::1 ", []string{"127.0.0.1:8080", "10.0.0.0/8", "::1"}, false},
		{"[::1]:8443", []string{"[::1]:8443"}, false},
		{"10.1.2.3/8", []string{"10.0.0.0/8"}, false},
		{"fd00::/8", []string{"fd00::/8"}, false},
		{"::ffff:10.0.0.1", []string{"10.0.0.1"}, false},
		{"localhost", nil, true},
		{"10.0.0.1:0", nil, true},
		{"10.0.0.1:99999", nil, true},
		{"10.0.0.0/33", nil, true},
		{"http://10.0.0.1", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseAllowAddrs(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseAllowAddrs(%q) error = %v", tt.in, err)
			continue
		}
		if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseAllowAddrs(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// What it returns is accepted back.
		if !tt.wantErr {
			if _, err := newGuard(Config{AllowAddrs: got}); err != nil {
				t.Errorf("round trip of %q: %v", got, err)
			}
		}
	}
}

func TestGuardCheck(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		addr    string
		allowed bool
	}{
		{"public 443", Config{}, "93.184.216.34:443", true},
		{"public 80", Config{}, "93.184.216.34:80", true},
		{"public odd port", Config{}, "93.184.216.34:8080", false},
		{"public allowed port", Config{AllowPorts: []int{8080}}, "93.184.216.34:8080", true},
		{"loopback", Config{}, "127.0.0.1:80", false},
		{"loopback v6", Config{}, "[::1]:443", false},
		{"metadata", Config{}, "169.254.169.254:80", false},
		{"mapped loopback", Config{}, "[::ffff:127.0.0.1]:80", false},
		{"private allowed any port", Config{AllowPrivateNetworks: true}, "10.0.0.5:5432", true},
		{"loopback allowed any port", Config{AllowPrivateNetworks: true}, "127.0.0.1:9999", true},
		{"allow-addr ip any port", Config{AllowAddrs: []string{"10.0.0.5"}}, "10.0.0.5:8081", true},
		{"allow-addr ip other ip", Config{AllowAddrs: []string{"10.0.0.5"}}, "10.0.0.6:80", false},
		{"allow-addr cidr", Config{AllowAddrs: []string{"192.168.0.0/16"}}, "192.168.7.7:80", true},
		{"allow-addr ip:port match", Config{AllowAddrs: []string{"127.0.0.1:8080"}}, "127.0.0.1:8080", true},
		{"allow-addr ip:port other port", Config{AllowAddrs: []string{"127.0.0.1:8080"}}, "127.0.0.1:8081", false},
		{"allow-addr mapped form", Config{AllowAddrs: []string{"127.0.0.1"}}, "[::ffff:127.0.0.1]:80", true},
		{"allow-addr public any port", Config{AllowAddrs: []string{"93.184.216.34"}}, "93.184.216.34:8443", true},
	}
	for _, tt := range tests {
		g, err := newGuard(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = g.check(netip.MustParseAddrPort(tt.addr))
		if (err == nil) != tt.allowed {
			t.Errorf("%s: check(%s) = %v, want allowed=%v", tt.name, tt.addr, err, tt.allowed)
		}
		var re *refusedError
		if err != nil && (!errors.As(err, &re) || !strings.Contains(err.Error(), "refused address")) {
			t.Errorf("%s: error %v", tt.name, err)
		}
	}
	g, _ := newGuard(Config{AllowPrivateNetworks: true})
	if err := g.control(context.Background(), "udp", "127.0.0.1:53", nil); err == nil {
		t.Error("udp allowed")
	}
}
