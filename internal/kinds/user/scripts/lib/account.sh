# The check every user-* script makes of its NAME ($n, which the including
# script sets, after including fail): an account Zap manages, so neither
# empty nor root, and no word an option or a path could be read as. One
# that isn't exits 2.
case $n in
'' | root | -* | */*) zap_fail 2 "$n is not an account zap manages" ;;
esac
