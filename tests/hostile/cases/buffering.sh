#% category: every buffering utility on endless or huge input
#### sort-endless
yes | sort
#### sort-random-endless
cat /dev/urandom | sort
#### tac-endless
yes | tac
#### shuf-endless
yes | shuf
#### uniq-endless
yes | uniq -c
#### rev-endless-line
tr -d '\n' < /dev/zero | rev
#### cat-to-var
x=$(cat /dev/zero)
#### awk-slurp
yes | awk '{ a[NR] = $0 }'
#### awk-concat
yes | awk '{ s = s $0 } END { print length(s) }'
#### sed-hold
yes | sed -n 'H; $p'
#### sed-N-loop
yes | sed ':a;N;ba'
#### wc-endless
cat /dev/zero | wc -c
#### grep-one-line
tr -d '\n' < /dev/zero | grep x
#### cut-one-line
tr -d '\n' < /dev/zero | cut -c1
#### head-one-line
tr -d '\n' < /dev/zero | head -n 1
#### tail-endless
yes | tail -n 100000000
#### paste-endless
yes | paste -s
#### fold-endless-line
tr -d '\n' < /dev/zero | fold -w 10 | head -c 10
#### xargs-endless
yes | xargs echo > /dev/null
#### comm-endless
yes | comm - /dev/null
#### join-endless
yes | join - /dev/null
#### diff-big
head -c 50000000 /dev/zero > /tmp/a; head -c 50000000 /dev/urandom > /tmp/b; diff /tmp/a /tmp/b
#### base64-endless
base64 /dev/zero | tail -c 10
#### gzip-endless
gzip -c < /dev/zero | gzip -dc | tail -c 1
#### tar-endless
head -c 600000000 /dev/zero > /tmp/z; tar cf /tmp/z.tar /tmp/z
#### jq-slurp
yes '{"a":1}' | jq -s length
#### file-fill
while :; do cat /dev/zero > /tmp/fill; done
#### file-append-forever
while :; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx >> /tmp/f; done
#### many-files
for ((i=0;;i++)); do : > /tmp/f$i; done
#### split-endless
yes | split -b 1000 - /tmp/part
