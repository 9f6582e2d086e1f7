package experiments

import (
	"math"
	"math/big"
	"sync"
)

// pyLog is the natural logarithm close to how CPython's math.log returns it on Linux, where it is
// glibc's log. Go's math.Log is accurate to one ulp but not correctly rounded, and with it about one
// expovariate draw in fourteen came out one or two ulps away from Python's. pyLog evaluates the
// logarithm to roughly 2^-70 relative error and rounds once, so it returns the correctly rounded
// value; glibc is correctly rounded on all but a few inputs in ten thousand (its error bound is
// 0.52 ulp), and on those the two differ by one ulp. Counts cannot notice unless a duration lands
// within an ulp of a timeout.
//
// Method: x = 2^e * m with m in [1, 2); m's top seven fraction bits pick c from a 128-entry table
// with an 8-significant-bit reciprocal invc, so r = m*invc - 1 is exact in float64; then
// log x = e*ln2 + log(1/invc) + log1p(r), with the constants held as two floats each and log1p(r)
// summed from r, an exact r*r and a short polynomial. Inputs that are not positive, finite and
// normal go to math.Log, whose answers there (-Inf, NaN, +Inf) are the same.
func pyLog(x float64) float64 { return logWith(logTable(), x) }

// logWith is pyLog with its table passed in, for callers that draw millions of logarithms.
func logWith(t *logConsts, x float64) float64 {
	if !(x >= 0x1p-1022) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	b := math.Float64bits(x)
	e := float64(int(b>>52) - 1023)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	ent := &t.entries[(b>>45)&127]

	// r = m*invc - 1 exactly: m*invc has at most 61 significant bits down to 2^-60 and lies within
	// 2^-7 of 1, so the difference fits in 53 bits. Splitting m in halves makes each product exact,
	// and Sterbenz's lemma makes the subtraction exact, without relying on a fused multiply-add.
	mHi := math.Float64frombits(math.Float64bits(m) &^ (1<<27 - 1))
	mLo := m - mHi
	r := (float64(mHi*ent.invc) - 1) + float64(mLo*ent.invc)

	// r*r as rrHi + rrLo exactly (Dekker). The explicit conversions keep the compiler from fusing
	// a multiply and an add, which would change the rounding this relies on.
	rh, rl := split(r)
	rrHi := float64(r * r)
	rrLo := ((float64(rh*rh) - rrHi) + float64(2*rh*rl)) + float64(rl*rl)

	// log1p(r) = r - r^2/2 + r^3*(1/3 - r/4 + ... ), the tail to r^11; |r| < 2^-7 makes the
	// truncation below 2^-80 relative.
	// Estrin's scheme rather than Horner's: the same terms in four dependent steps instead of
	// eight, which matters because this polynomial is most of a draw's latency.
	c := &log1pTail
	r4 := float64(rrHi * rrHi)
	p01, p23 := c[0]+float64(c[1]*r), c[2]+float64(c[3]*r)
	p45, p67 := c[4]+float64(c[5]*r), c[6]+float64(c[7]*r)
	p := (p01 + float64(p23*rrHi)) + float64(r4*((p45+float64(p67*rrHi))+float64(c[8]*r4)))
	cubic := float64(float64(rrHi*r) * p)

	// e*ln2 + log(1/invc): the high parts are 42-bit numbers, so e*ln2Hi is exact and their sum is
	// taken exactly; when e = -1 and invc = 1/2 both parts cancel to zero, as they must near x = 1.
	hi, err1 := twoSum(float64(e*t.ln2Hi), ent.logHi)
	s, err2 := twoSum(hi, r)
	s, err3 := twoSum(s, -0.5*rrHi)
	lo := (float64(e*t.ln2Lo) + ent.logLo) + err1 + err2 + err3 + (cubic - 0.5*rrLo)
	return s + lo
}

// log1pTail are the coefficients of r^3, r^4, ..., r^11 in log1p(r): +1/3, -1/4, ... Go evaluates
// the constant divisions exactly and rounds once.
var log1pTail = [...]float64{1.0 / 3, -1.0 / 4, 1.0 / 5, -1.0 / 6, 1.0 / 7, -1.0 / 8, 1.0 / 9, -1.0 / 10, 1.0 / 11}

// split is Veltkamp's splitting: x = hi + lo with each half at most 26 bits, so products of halves
// are exact.
func split(x float64) (hi, lo float64) {
	c := float64(134217729 * x) // 2^27 + 1
	hi = c - (c - x)
	return hi, x - hi
}

// twoSum returns a+b rounded and the exact rounding error (Knuth).
func twoSum(a, b float64) (s, err float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

type logEntry struct {
	invc         float64 // about 1/c for c in the middle of the interval, 8 significant bits
	logHi, logLo float64 // log(1/invc) = logHi + logLo, logHi rounded to 42 bits
}

type logConsts struct {
	ln2Hi, ln2Lo float64
	entries      [128]logEntry
}

// logTable is computed once, with math/big, rather than copied from a C library: every constant
// can be checked by reading this function.
var logTable = sync.OnceValue(func() *logConsts {
	const prec = 160
	t := &logConsts{}
	ln2 := bigLog(big.NewFloat(2).SetPrec(prec), prec)
	t.ln2Hi, t.ln2Lo = hiLo(ln2, prec)
	for j := range t.entries {
		// The middle of [1 + j/128, 1 + (j+1)/128), its reciprocal rounded to 8 significant bits.
		c := 1 + (float64(j)+0.5)/128
		invc := roundBits(1/c, 8)
		switch j {
		case 0:
			invc = 1 // log(1) must come out exactly 0, so this interval needs log(1/invc) = 0
		case 127:
			invc = 0.5 // just below x = 1 (e = -1, m near 2): must cancel e*ln2 exactly
		}
		v := bigLog(new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(invc).SetPrec(prec)), prec)
		t.entries[j] = logEntry{invc: invc}
		t.entries[j].logHi, t.entries[j].logLo = hiLo(v, prec)
	}
	return t
})

// hiLo splits v into a 42-bit float and the float nearest to the rest.
func hiLo(v *big.Float, prec uint) (float64, float64) {
	f, _ := v.Float64()
	hi := roundBits(f, 42)
	rest := new(big.Float).SetPrec(prec).Sub(v, big.NewFloat(hi))
	lo, _ := rest.Float64()
	return hi, lo
}

// roundBits rounds x to n significant bits.
func roundBits(x float64, n int) float64 {
	fr, exp := math.Frexp(x)
	return math.Ldexp(math.RoundToEven(math.Ldexp(fr, n)), exp-n)
}

// bigLog is log(y) for y in (0, 4) by 2*atanh((y-1)/(y+1)), summed until the terms stop
// mattering at prec bits; slow, but it runs 129 times per process.
func bigLog(y *big.Float, prec uint) *big.Float {
	one := big.NewFloat(1).SetPrec(prec)
	num := new(big.Float).SetPrec(prec).Sub(y, one)
	den := new(big.Float).SetPrec(prec).Add(y, one)
	s := new(big.Float).SetPrec(prec).Quo(num, den)
	s2 := new(big.Float).SetPrec(prec).Mul(s, s)
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(s)
	term := new(big.Float).SetPrec(prec)
	for k := int64(1); k < 2000; k += 2 {
		term.Quo(pow, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -int(prec) {
			break
		}
		pow.Mul(pow, s2)
	}
	return sum.Mul(sum, big.NewFloat(2).SetPrec(prec))
}
