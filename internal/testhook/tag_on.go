//go:build zaptest

package testhook

const tagged = true
