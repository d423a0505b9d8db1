#% category: here-documents and here-strings
#### heredoc-endless-reader
while :; do cat <<EOF
hello
EOF
done > /dev/null
#### heredoc-expanding-var
x=$(printf '%*s' 10000000 ''); while :; do cat <<EOF > /dev/null
$x$x$x$x$x$x$x$x
EOF
done
#### heredoc-doubling
x=ab; while :; do x=$(cat <<EOF
$x$x
EOF
); done
#### herestring-doubling
x=ab; while :; do read -r x <<< "$x$x"; done
#### heredoc-in-function-recursion
f() { cat <<EOF | f
x
EOF
}; f
#### heredoc-cmdsubst-inside
cat <<EOF
$(yes)
EOF
#### heredoc-many-at-once
x=$(printf '%*s' 1000000 ''); cat <<A <<B <<C <<D > /dev/null
$x
A
$x
B
$x
C
$x$x$x$x$x
D
echo done
#### herestring-huge
x=$(head -c 60000000 /dev/zero | tr '\0' a); while :; do wc -c <<< "$x$x" > /dev/null; done
#### heredoc-to-endless-loop
while read -r l; do echo "$l"; done <<EOF > /dev/null
$(yes | head -n 1000000)
EOF
while :; do :; done
#### heredoc-arith-loop
while :; do cat <<EOF > /dev/null
$((i++))
EOF
done
