// Package tiny is a throwaway module that the gotest tests compile and run.
package tiny

// Sum returns 0+1+...+(n-1).
func Sum(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}
