#!/usr/bin/perl
# tests/vision-server.pl PORTFILE LOGFILE STUBDIR: a tiny OpenAI-compatible
# chat-completions endpoint with images, on 127.0.0.1 (an ephemeral port,
# written to PORTFILE), for analyze_homework_image's tests.  The first path
# segment NAME picks the answer:
#   STUBDIR/NAME.text exists   200, a completion whose content is that text
#   STUBDIR/NAME.raise exists  HTTP 500 (the model's API failing)
#   busy-NAME                  429 the first time, then as NAME
#   slow                       answers after 5 seconds
#   anything else              HTTP 404
# Each request is logged as one line: the path, whether an Authorization
# header came (the key itself is never written), the model, max_tokens,
# the image's media type and the length of its base64, and the user text
# with new lines as \n.  perl-base only; exits after 600 s.
use strict;
use warnings;
use IO::Socket::INET;

my ($portfile, $logfile, $stubdir) = @ARGV;
my $dir = $0 =~ m{^(.*)/} ? $1 : '.';
require "$dir/test-server.pl";
my ($srv, $log) = listen_local($portfile, $logfile, 600);

sub reply {
	my ($c, $status, $body) = @_;
	print $c "HTTP/1.0 $status\r\nContent-Type: application/json\r\n",
	    "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
}

sub slurp {
	my $path = shift;
	open my $f, '<', $path or return undef;
	local $/;
	my $s = <$f>;
	close $f;
	return $s;
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
	my $got = 0;
	while ($got < $len) {
		my $n = read $c, $body, $len - $got, $got;
		last unless $n;
		$got += $n;
	}
	my ($path) = $head =~ /^\w+ (\S+)/;
	my ($name) = ($path // '') =~ m{^/([^/]+)};
	$name //= '';
	my $auth = $head =~ /^Authorization: Bearer \S+/mi ? 'yes' : 'no';
	my ($model) = $body =~ /"model":"([^"]*)"/;
	my ($max) = $body =~ /"max_tokens":(\d+)/;
	my ($mime, $b64) = $body =~ m{"url":"data:([^;"]*);base64,([A-Za-z0-9+/=]*)"};
	my ($text) = $body =~ /"type":"text","text":"((?:[^"\\]|\\.)*)"/;
	print $log "$path auth=$auth model=", $model // '', " max_tokens=", $max // '',
	    " image=", $mime // 'none', " b64=", length($b64 // ''), " text=", $text // '', "\n";
	$seen{$name}++;
	if ($name =~ /^busy-(.*)/ && $seen{$name} == 1) {
		reply($c, '429 Too Many Requests', '{"error":"slow down"}');
		close $c;
		next;
	}
	$name =~ s/^busy-//;
	if ($name eq 'slow') {
		if (fork() == 0) {
			sleep 5;
			reply($c, '200 OK', '{"choices":[]}');
			exit 0;
		}
	} elsif ($name =~ /^[\w.-]+$/ && defined(my $t = slurp("$stubdir/$name.text"))) {
		reply($c, '200 OK', '{"id":"t","object":"chat.completion","choices":[{"index":0,'
		    . '"message":{"role":"assistant","content":' . json_string($t) . '}}]}');
	} elsif ($name =~ /^[\w.-]+$/ && -e "$stubdir/$name.raise") {
		reply($c, '500 Internal Server Error', '{"error":{"message":"API error"}}');
	} else {
		reply($c, '404 Not Found', '{"error":"no such stub"}');
	}
	close $c;
}
