package contactsredis

import "strings"

// Slot is the Redis Cluster hash slot of a key: CRC16 (XMODEM) of its hash
// tag (the text between its first '{' and the next '}', when not empty) or
// of the whole key, modulo 16384 — the rule every cluster node applies, so
// that Add can group a batch's keys by slot before sending them.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^key[k]]
	}
	return int(crc) % 16384
}

var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()
