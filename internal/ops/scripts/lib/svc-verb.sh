# What svc-start and svc-stop do with their service, put in place where
# each says `#@include svc-verb` after svc-args: systemctl VERB, or
# rc-service SERVICE VERB. The including script sets verb first.
case $manager in
systemd) exec systemctl "$verb" -- "$svc" ;;
openrc) exec rc-service "$svc" "$verb" ;;
esac
zap_fail 93 "not a service manager with a backend: $manager"
