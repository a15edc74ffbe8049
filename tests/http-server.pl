#!/usr/bin/perl
# tests/http-server.pl PORTFILE LOGFILE: a tiny HTTP/1.0 server on
# 127.0.0.1 (an ephemeral port, written to PORTFILE) standing in for a
# SearXNG search endpoint and an OpenAI-compatible embeddings endpoint.
# The first path segment picks the behaviour:
#   /ok/search?q=...            two results that echo the query
#   /empty/search               no results
#   /500/search, /500/v1/embeddings        HTTP 500
#   /garbage/search, /garbage/v1/embeddings  200 with text that is not JSON
#   /shape/search, /shape/v1/embeddings    JSON of the wrong shape
#   /slow/search, /slow/v1/embeddings      answer after 3 seconds
#   /ok/v1/embeddings           deterministic 32-dimension vectors hashed
#                               from the character bigrams of each input
# Every request is logged as "METHOD PATH auth=yes|no" (the key itself is
# never written).  Uses perl-base only; exits by itself after 120 seconds.
use strict;
use warnings;
use IO::Socket::INET;

my ($portfile, $logfile) = @ARGV;
$SIG{PIPE} = 'IGNORE';
$SIG{ALRM} = sub { exit 0 };
alarm 120;

my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
    Proto => 'tcp', Listen => 16, ReuseAddr => 1) or die "listen: $!";
open my $pf, '>', "$portfile.tmp" or die;
print $pf $srv->sockport, "\n";
close $pf;
rename "$portfile.tmp", $portfile or die;
open my $log, '>>', $logfile or die;
$log->autoflush(1);

sub unescape { my $s = shift; $s =~ tr/+/ /; $s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge; $s }

sub json_string {
	my $s = shift;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/([\x00-\x1f])/sprintf '\\u%04x', ord $1/ge;
	return "\"$s\"";
}

# Pull the "input" strings out of an embeddings request (no JSON module in
# perl-base: the client sends compact JSON with escaped strings).
sub inputs {
	my $body = shift;
	$body =~ /"input":\[(.*)\]\}\s*$/s or return ();
	my $list = $1;
	my @out;
	while ($list =~ /"((?:[^"\\]|\\.)*)"/g) {
		my $s = $1;
		$s =~ s/\\u([0-9a-fA-F]{4})/chr hex $1/ge;
		$s =~ s/\\n/\n/g;
		$s =~ s/\\(.)/$1/g;
		push @out, $s;
	}
	return @out;
}

sub vector {
	my $text = shift;
	utf8::decode($text);
	$text = lc $text;
	my @v = (0) x 32;
	my @c = grep { !/\s/ } split //, $text;
	for my $i (0 .. $#c - 1) {
		my $h = 0;
		$h = ($h * 31 + ord $_) % 1000003 for ($c[$i], $c[$i + 1]);
		$v[$h % 32] += 1;
	}
	return '[' . join(',', map { sprintf '%.3f', $_ } @v) . ']';
}

sub reply {
	my ($c, $status, $body) = @_;
	my $len = length $body;
	print $c "HTTP/1.0 $status\r\nContent-Type: application/json\r\n" .
	    "Content-Length: $len\r\nConnection: close\r\n\r\n$body";
}

while (my $c = $srv->accept) {
	local $/ = "\r\n";
	my $line = <$c> // next;
	my ($method, $target) = split / /, $line;
	my ($len, $auth) = (0, 'no');
	while (defined(my $h = <$c>)) {
		last if $h eq "\r\n";
		$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
		$auth = 'yes' if $h =~ /^Authorization:\s*Bearer\s+\S/i;
	}
	my $body = '';
	read $c, $body, $len if $len;
	my ($path, $query) = split /\?/, $target, 2;
	print $log "$method $path auth=$auth\n";
	my ($mode, $what) = $path =~ m{^/([^/]+)(/.*)$} ? ($1, $2) : ('', $path);
	if ($mode eq 'slow') {
		sleep 3;
		$mode = 'ok';
	}
	if ($mode eq '500') {
		reply($c, '500 Internal Server Error', '{"error":"boom"}');
	} elsif ($mode eq 'garbage') {
		reply($c, '200 OK', "<html>not json{");
	} elsif ($mode eq 'shape') {
		reply($c, '200 OK', $what =~ /embeddings/ ? '{"data":[{"embedding":"x"}]}' :
		    '{"results":"none"}');
	} elsif ($what eq '/search') {
		my %p = map { my ($k, $v) = split /=/, $_, 2; ($k, unescape($v // '')) }
		    split /&/, $query // '';
		my $q = $p{q} // '';
		my $lang = $p{language} // '-';
		print $log "  q=$q format=", $p{format} // '-', " language=$lang\n";
		if ($mode eq 'empty') {
			reply($c, '200 OK', '{"query":' . json_string($q) . ',"results":[]}');
		} else {
			reply($c, '200 OK', '{"query":' . json_string($q) . ',"results":[' .
			    '{"title":"Result one","url":"https://example.test/1","content":' .
			    json_string("First result about $q") . '},' .
			    '{"title":"Result two","url":"https://example.test/2","content":"Second result"},' .
			    '{"url":"https://example.test/3"}]}');
		}
	} elsif ($what eq '/v1/embeddings' && $method eq 'POST') {
		my @in = inputs($body);
		print $log "  inputs=", scalar @in, "\n";
		my $i = 0;
		reply($c, '200 OK', '{"object":"list","data":[' . join(',', map {
		    '{"object":"embedding","index":' . $i++ . ',"embedding":' . vector($_) . '}' } @in) .
		    '],"model":"test-embed"}');
	} else {
		reply($c, '404 Not Found', '{"error":"no such path"}');
	}
	close $c;
}
