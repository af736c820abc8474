package vocab

// AptKeyLimit is the largest apt signing key Zap fetches, reads or
// compares: a key at key_path over it holds. The apt_repo kind
// (internal/kinds/aptrepo) reads it, and so do the executor and the lock's
// pinning, which fetch the key.
const AptKeyLimit = 1 << 20
