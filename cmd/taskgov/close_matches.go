package main

import "sort"

// maxSuggestWord is the longest unknown option closeMatches compares.
const maxSuggestWord = 200

// closeMatches returns up to three of candidates that read like word, best
// first, as click finds the options it suggests for an unknown one
// (Python's difflib.get_close_matches: a similarity ratio of at least 0.6,
// ties broken by the greater name).
// A word longer than maxSuggestWord gets none without comparing (the cost
// is the product of the lengths): a ratio of 0.6 needs the word within
// 2.4 times a candidate's length, and no option has 80 characters.
func closeMatches(word string, candidates []string) []string {
	if len(word) > maxSuggestWord {
		return nil
	}
	type scored struct {
		name  string
		ratio float64
	}
	var found []scored
	for _, c := range candidates {
		if r := similarity(c, word); r >= 0.6 {
			found = append(found, scored{c, r})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].ratio != found[j].ratio {
			return found[i].ratio > found[j].ratio
		}
		return found[i].name > found[j].name
	})
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// similarity is 2*M/T, M the characters of a and b in matching blocks
// (the longest common substring, earliest in a then in b, and recursively
// the same on each side of it) and T their total length; 1 for two empty
// strings.
func similarity(a, b string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2 * float64(matchingChars(a, b)) / float64(len(a)+len(b))
}

// matchingChars is M of similarity.
func matchingChars(a, b string) int {
	i, j, k := longestCommon(a, b)
	if k == 0 {
		return 0
	}
	return k + matchingChars(a[:i], b[:j]) + matchingChars(a[i+k:], b[j+k:])
}

// longestCommon finds the longest common substring a[i:i+k] == b[j:j+k],
// the one starting earliest in a, then earliest in b.
func longestCommon(a, b string) (bi, bj, bk int) {
	prev := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		for j := 1; j <= len(b); j++ {
			if a[i-1] != b[j-1] {
				continue
			}
			cur[j] = prev[j-1] + 1
			if k := cur[j]; k > bk || k == bk && (i-k < bi || i-k == bi && j-k < bj) {
				bi, bj, bk = i-k, j-k, k
			}
		}
		prev = cur
	}
	return bi, bj, bk
}
