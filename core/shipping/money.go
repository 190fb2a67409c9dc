package shipping

import (
	"encoding/json"
	"math/big"
	"reflect"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number as a client wrote it in JSON (a rate
// table's costs, divisor and discount rates). It is kept as text so that no
// binary floating point ever touches money, and read as a big.Rat when
// computed with. The zero value is 0.
type Decimal string

// maxDecimalText bounds the literal a Decimal may hold: big.Rat would
// otherwise happily build a number with a billion digits from "1e999999999".
const maxDecimalText = 40

// UnmarshalJSON keeps a JSON number's literal as written; anything else is a
// type error, which the HTTP adapter reports naming the field.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return &json.UnmarshalTypeError{Value: jsonKind(s), Type: reflect.TypeOf(0.0)}
	}
	*d = Decimal(s)
	return nil
}

func jsonKind(s string) string {
	switch {
	case strings.HasPrefix(s, `"`):
		return "string"
	case s == "true" || s == "false":
		return "bool"
	case s == "null":
		return "null"
	case strings.HasPrefix(s, "["):
		return "array"
	case strings.HasPrefix(s, "{"):
		return "object"
	}
	return s
}

// MarshalJSON writes the number as it is kept (canonical once validated).
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("0"), nil
	}
	return []byte(d), nil
}

// Rat is the exact value of d; ok is false when d is not a number.
func (d Decimal) Rat() (r *big.Rat, ok bool) {
	s := string(d)
	if s == "" {
		return new(big.Rat), true
	}
	if len(s) > maxDecimalText || strings.ContainsAny(s, "/ ") {
		return nil, false
	}
	// An exponent beyond ±30 cannot be a cost, a divisor or a rate, and
	// keeps SetString from allocating a huge number.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 30 || e < -30 {
			return nil, false
		}
	}
	r, ok = new(big.Rat).SetString(s)
	return r, ok
}

// decimalOf writes r, a number with a finite decimal expansion, in its
// shortest exact form: 0.5, 5000, 0.125.
func decimalOf(r *big.Rat) Decimal {
	if r.IsInt() {
		return Decimal(r.Num().String())
	}
	// The denominator of a parsed decimal divides a power of ten; find it.
	ten := big.NewInt(10)
	p := big.NewInt(1)
	for k := 1; k <= 2*maxDecimalText+60; k++ {
		p.Mul(p, ten)
		if new(big.Int).Mod(p, r.Denom()).Sign() == 0 {
			return Decimal(r.FloatString(k))
		}
	}
	return Decimal(r.FloatString(2*maxDecimalText + 60))
}

// Amount is money in hundredths of the currency unit (cents), so sums and
// differences are exact; it is written in JSON as a number of units with at
// most two decimals: 4000, 2080.5, 3163.55.
type Amount int64

// MarshalJSON writes the amount as a JSON number without trailing zeros.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// String is the amount in units, without trailing zeros.
func (a Amount) String() string {
	sign := ""
	v := int64(a)
	if v < 0 {
		sign, v = "-", -v
	}
	units, cents := v/100, v%100
	switch {
	case cents == 0:
		return sign + strconv.FormatInt(units, 10)
	case cents%10 == 0:
		return sign + strconv.FormatInt(units, 10) + "." + strconv.FormatInt(cents/10, 10)
	}
	return sign + strconv.FormatInt(units, 10) + "." + strconv.FormatInt(cents/10, 10) + strconv.FormatInt(cents%10, 10)
}

// amountOf converts an exact money value with at most two decimals to
// cents; ok is false when it has more decimals or does not fit.
func amountOf(r *big.Rat) (Amount, bool) {
	c := new(big.Rat).Mul(r, big.NewRat(100, 1))
	if !c.IsInt() || !c.Num().IsInt64() {
		return 0, false
	}
	return Amount(c.Num().Int64()), true
}

// roundHalfAway rounds a non-negative rational to the nearest integer,
// halves away from zero (up, for non-negative values).
func roundHalfAway(r *big.Rat) *big.Int {
	num, den := r.Num(), r.Denom()
	// floor((2·num + den) / (2·den))
	n := new(big.Int).Add(new(big.Int).Lsh(num, 1), den)
	return n.Quo(n, new(big.Int).Lsh(den, 1))
}

// ceilDiv is ⌈r⌉ for a non-negative rational.
func ceilDiv(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
