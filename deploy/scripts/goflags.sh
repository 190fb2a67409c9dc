# goflags.sh, sourced by the test scripts: the builds drop the clone's
# directory from what they compile (-trimpath, through GOFLAGS so that the
# go commands the tests run themselves have it too). The build cache then
# serves a clone at any path, not only the one that filled it.
flags="$("${GO:-go}" env GOFLAGS)"
case " $flags " in
*" -trimpath "*) ;;
*) export GOFLAGS="${flags:+$flags }-trimpath" ;;
esac
unset flags
