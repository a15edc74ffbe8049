#!/usr/bin/perl
# tests/llm-server.pl PORTFILE LOGFILE: a tiny OpenAI-compatible chat
# completions endpoint on 127.0.0.1 (an ephemeral port, written to
# PORTFILE) for cc-respond's tests.  The first path segment picks the
# behaviour; every reply is built from the request, so a test can check
# what was asked:
#   /ok        "[relaxed]" + the first line of the prompt's information
#   /notag     the same line with no emotion tag
#   /invent    an answer stating a time the prompt does not hold
#   /429       429 on the first request, then like /ok
#   /500       HTTP 500        /401      HTTP 401 (a refused key)
#   /garbage   200, not JSON
#   /shape     JSON with no choices      /slow  answers after 5 seconds
#   /stream    like /ok, as server-sent events in pieces, ending [DONE]
#   /cut       the same events, cut off before the end
#   /reword    "[happy]" + the prompt's last line + " がんばろう！" (cc-tutor)
#   /tell      a reply that gives an answer away, in kana (cc-tutor's guard)
# Each request is logged as one line: the path, whether an Authorization
# header came (the key itself is never written), the model, max_tokens,
# and the prompt with new lines as \n.  perl-base only; exits after 600 s.
use strict;
use warnings;
use IO::Socket::INET;

my ($portfile, $logfile) = @ARGV;
my $dir = $0 =~ m{^(.*)/} ? $1 : '.';
require "$dir/test-server.pl";
my ($srv, $log) = listen_local($portfile, $logfile, 600);

sub unjson {
	my $s = shift;
	$s =~ s/\\u([0-9a-fA-F]{4})/chr hex $1/ge;
	$s =~ s/\\n/\n/g;
	$s =~ s/\\(.)/$1/g;
	return $s;
}

sub reply {
	my ($c, $status, $body) = @_;
	print $c "HTTP/1.0 $status\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
}

sub completion {
	my $text = shift;
	return '{"id":"t","object":"chat.completion","choices":[{"index":0,'
	    . '"message":{"role":"assistant","content":' . json_string($text) . '}}]}';
}

my %seen;
while (my $c = $srv->accept) {
	binmode $c;
	my ($head, $body, $len) = ('', '', 0);
	while (defined(my $l = <$c>)) {
		$head .= $l;
		$len = $1 if $l =~ /^Content-Length:\s*(\d+)/i;
		last if $l eq "\r\n";
	}
	read $c, $body, $len if $len;
	my ($path) = $head =~ /^\w+ (\S+)/;
	my ($mode) = ($path // '') =~ m{^/([^/]+)};
	$mode //= '';
	my $auth = $head =~ /^Authorization: Bearer \S+/mi ? 'yes' : 'no';
	my ($model) = $body =~ /"model":"([^"]*)"/;
	my ($max) = $body =~ /"max_tokens":(\d+)/;
	my ($user) = $body =~ /"role":"user","content":"((?:[^"\\]|\\.)*)"/;
	$user = unjson($user // '');
	(my $flat = $user) =~ s/\n/\\n/g;
	print $log "$path auth=$auth model=", $model // '', " max_tokens=", $max // '',
	    " prompt=$flat\n";
	# the first line after the information or events heading
	my ($line) = $user =~ /(?:情報:|Information:|カレンダーイベント:|Calendar Events:)\n+([^\n]+)/;
	$line //= '';
	$seen{$mode}++;
	if ($mode eq 'ok' || ($mode eq '429' && $seen{$mode} > 1)) {
		reply($c, '200 OK', completion("[relaxed]$line"));
	} elsif ($mode eq 'stream' || $mode eq 'cut') {
		# split by characters, as a real server does, not inside one
		my $chars = $line;
		utf8::decode($chars);
		my @pieces = ("[rel", "axed]", substr($chars, 0, 3), substr($chars, 3));
		utf8::encode($_) for @pieces;
		print $c "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
		for my $p (@pieces) {
			print $c 'data: {"choices":[{"index":0,"delta":{"content":',
			    json_string($p), "}}]}\n\n";
			last if $mode eq 'cut' && $p eq "axed]";
		}
		print $c "data: [DONE]\n\n" if $mode eq 'stream';
	} elsif ($mode eq 'notag') {
		reply($c, '200 OK', completion($line));
	} elsif ($mode eq 'reword') {
		my ($last) = $user =~ /([^\n]+)\s*\z/;
		$last //= '';
		$last =~ s/^\[[a-z]+\]//;
		reply($c, '200 OK', completion("[happy]$last がんばろう！"));
	} elsif ($mode eq 'tell') {
		reply($c, '200 OK', completion("[happy]こたえは ろくじゅうはち だよ！"));
	} elsif ($mode eq 'invent') {
		reply($c, '200 OK', completion("[relaxed]It opens at 7:15."));
	} elsif ($mode eq '429') {
		reply($c, '429 Too Many Requests', '{"error":"slow down"}');
	} elsif ($mode eq '401') {
		reply($c, '401 Unauthorized', '{"error":"bad key"}');
	} elsif ($mode eq 'garbage') {
		reply($c, '200 OK', 'this is not json');
	} elsif ($mode eq 'shape') {
		reply($c, '200 OK', '{"choices":[]}');
	} elsif ($mode eq 'slow') {
		# answer late from a child, so the other tests are not kept waiting
		if (fork() == 0) {
			sleep 5;
			reply($c, '200 OK', completion("[relaxed]late"));
			exit 0;
		}
	} else {
		reply($c, '500 Internal Server Error', '{"error":"boom"}');
	}
	close $c;
}
