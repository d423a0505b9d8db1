#% category: descriptor floods
#### exec-fd-flood
for ((i=0;;i++)); do exec {fd}>/tmp/f$i || break; done; echo $i
#### exec-dup-flood
for ((i=0;;i++)); do exec {fd}>&1 || break; done
#### open-same-file
for ((i=0;;i++)); do exec {fd}</dev/zero || break; done
#### proc-subst-fds
for ((i=0;;i++)); do exec {fd}< <(:) || break; done
#### redirect-loop
while :; do exec 3>/tmp/x; exec 3>&-; done
#### pipe-fd-loop
while :; do exec {a}< <(echo hi); read -r x <&$a; done
#### high-fd-numbers
exec 1000>/tmp/x 2000>/tmp/y 99999>/tmp/z; echo $?
#### coproc-fds
for i in {1..300}; do coproc cat; done
#### many-redirs-one-command
eval "echo $(for i in {3..900}; do printf '%d>/tmp/r%d ' $i $i; done)"
#### dev-fd-loop
while :; do cat /dev/fd/0 < /dev/null; done
