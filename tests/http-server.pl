#!/usr/bin/perl
# tests/http-server.pl PORTFILE LOGFILE [LIFETIME]: a tiny HTTP server on
# 127.0.0.1 (an ephemeral port, written to PORTFILE) standing in for every
# outside service: a SearXNG search endpoint, OpenAI-compatible embeddings
# and chat completions, an iCalendar URL and the connpass API.  Used by
# rag-http.test and, for every client against every fault, faults.test.
# The first path segment picks the behaviour, the rest the service
# (.../search, .../embeddings, .../chat/completions, .../connpass/,
# anything else: a calendar):
#   /ok/...        a good answer of the service's shape: two search
#                  results that echo the query; deterministic 32-dimension
#                  vectors hashed from the character bigrams of each input;
#                  a completion with no numbers in it; connpass events and
#                  a calendar in the week of 2025-01-15
#   /escape/...    like /ok, a completion holding terminal control characters
#   /empty/search  no results
#   /shape/...     JSON of the wrong shape
#   /garbage/...   200 with text that is not JSON (nor a calendar)
#   /500/...       HTTP 500
#   /429/...       HTTP 429 with Retry-After: 1
#   /hang/...      reads the request and never answers (until the client
#                  gives up)
#   /reset/...     reads the request and resets the connection (RST)
#   /slow/...      a 200 whose body drips a byte every 0.2 s: slower than
#                  any client's time limit
#   /truncated/... promises 5000 bytes, sends 100 and closes
#   /oversized/... 200 with no length, streaming up to 256 MiB: far beyond
#                  every client's size cap, until the client hangs up
#   /redirect/...  302 to /ok/...        /tofile/...  302 to file:///etc/passwd
#   /badredirect/... 302 to a Location holding terminal control characters
# Every request is logged as "METHOD PATH auth=yes|no" (an Authorization
# or X-API-Key header came; the key itself is never written), search
# queries as "  q=... format=... language=...", embeddings requests as
# "  inputs=N".  perl-base only; one process per connection; exits by
# itself after LIFETIME seconds (default 120), and so does every child.
use strict;
use warnings;
use IO::Socket::INET;
use Socket qw(SOL_SOCKET SO_LINGER);
use POSIX ();

my ($portfile, $logfile, $lifetime) = @ARGV;
die "usage: $0 PORTFILE LOGFILE [LIFETIME]\n" unless $logfile;
$lifetime ||= 120;
$SIG{PIPE} = 'IGNORE';
$SIG{CHLD} = 'IGNORE';
$SIG{ALRM} = sub { POSIX::_exit(0) };
alarm $lifetime;
my $deadline = time + $lifetime;

my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
    Proto => 'tcp', Listen => 64, ReuseAddr => 1) or die "listen: $!";
open my $pf, '>', "$portfile.tmp" or die;
print $pf $srv->sockport, "\n";
close $pf;
rename "$portfile.tmp", $portfile or die;

sub logline {
	# one write per line, appended: children share the file
	open my $log, '>>', $logfile or return;
	syswrite $log, join('', @_);
	close $log;
}

sub unescape { my $s = shift; $s =~ tr/+/ /; $s =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ge; $s }

sub json_string {
	my $s = shift;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/\n/\\n/g;
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

my %reason = (200 => 'OK', 302 => 'Found', 404 => 'Not Found', 429 => 'Too Many Requests',
    500 => 'Internal Server Error');

sub reply {
	my ($c, $status, $body, $type, @headers) = @_;
	print $c "HTTP/1.1 $status $reason{$status}\r\n",
	    "Content-Type: ", $type // 'application/json', "\r\n",
	    map({ "$_\r\n" } @headers),
	    "Content-Length: ", length($body), "\r\nConnection: close\r\n\r\n", $body;
}

my $calendar = join "\r\n", 'BEGIN:VCALENDAR', 'VERSION:2.0',
    'PRODID:-//concierge tests//fault server//EN', 'BEGIN:VEVENT',
    'UID:fault-ok@test', 'DTSTART;TZID=Asia/Tokyo:20250116T190000',
    'DTEND;TZID=Asia/Tokyo:20250116T210000', 'SUMMARY:Fault server night',
    'END:VEVENT', 'END:VCALENDAR', '';

my $connpass = '{"results_returned":1,"results_available":1,"results_start":1,'
    . '"events":[{"id":1,"title":"Fault server meetup","catch":"A test event",'
    . '"url":"https://example.test/e/1","started_at":"2025-01-16T19:00:00+09:00",'
    . '"ended_at":"2025-01-16T21:00:00+09:00","place":"Test hall","address":""}]}';

sub completion {
	return '{"id":"t","object":"chat.completion","choices":[{"index":0,'
	    . '"message":{"role":"assistant","content":' . json_string(shift) . '}}]}';
}

# The good answer of each service.
sub answer_ok {
	my ($c, $mode, $method, $what, $query, $body) = @_;
	if ($what =~ m{/search$}) {
		my %p = map { my ($k, $v) = split /=/, $_, 2; ($k, unescape($v // '')) }
		    split /&/, $query // '';
		my $q = $p{q} // '';
		return reply($c, 200, '{"query":' . json_string($q) . ',"results":[' .
		    '{"title":"Result one","url":"https://example.test/1","content":' .
		    json_string("First result about $q") . '},' .
		    '{"title":"Result two","url":"https://example.test/2","content":"Second result"},' .
		    '{"url":"https://example.test/3"}]}');
	}
	if ($what =~ m{/embeddings$} && $method eq 'POST') {
		my @in = inputs($body);
		my $i = 0;
		return reply($c, 200, '{"object":"list","data":[' . join(',', map {
		    '{"object":"embedding","index":' . $i++ . ',"embedding":' . vector($_) . '}' } @in) .
		    '],"model":"test-embed"}');
	}
	if ($what =~ m{/chat/completions$}) {
		my $text = $mode eq 'escape' ?
		    "[relaxed]Fine \e[Hred\e[m text\a and\rover." :
		    '[relaxed]The fault server answers well.';
		return reply($c, 200, completion($text)) unless $body =~ /"stream":true/;
		print $c "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n",
		    "Connection: close\r\n\r\n";
		for my $p ('[relaxed]', substr($text, 9)) {
			print $c 'data: {"choices":[{"index":0,"delta":{"content":',
			    json_string($p), "}}]}\n\n";
		}
		return print $c "data: [DONE]\n\n";
	}
	if ($what =~ m{/connpass/$}) {
		return reply($c, 200, $connpass);
	}
	return reply($c, 200, $calendar, 'text/calendar; charset=utf-8');
}

sub handle {
	my ($c) = @_;
	binmode $c;
	local $/ = "\r\n";
	my $line = <$c> // return;
	my ($method, $target) = split / /, $line;
	my ($len, $auth, $expect) = (0, 'no', 0);
	while (defined(my $h = <$c>)) {
		last if $h eq "\r\n";
		$len = $1 if $h =~ /^Content-Length:\s*(\d+)/i;
		$auth = 'yes' if $h =~ /^(?:Authorization:\s*Bearer|X-API-Key:)\s*\S/i;
		$expect = 1 if $h =~ /^Expect:\s*100-continue/i;
	}
	# curl waits a second for this before sending a body over 1 KiB
	print $c "HTTP/1.1 100 Continue\r\n\r\n" if $expect;
	my $body = '';
	read $c, $body, $len if $len;
	my ($path, $query) = split /\?/, $target // '/', 2;
	my ($mode, $what) = $path =~ m{^/([^/]+)(/.*)$} ? ($1, $2) : ('', $path);
	my $extra = '';
	if ($what =~ m{/search$}) {
		my %p = map { my ($k, $v) = split /=/, $_, 2; ($k, unescape($v // '')) }
		    split /&/, $query // '';
		$extra = "  q=" . ($p{q} // '') . " format=" . ($p{format} // '-') .
		    " language=" . ($p{language} // '-') . "\n";
	} elsif ($what =~ m{/embeddings$} && $method eq 'POST') {
		$extra = "  inputs=" . scalar(my @in = inputs($body)) . "\n";
	}
	logline("$method $path auth=$auth\n$extra");

	if ($mode eq 'ok' || $mode eq 'escape') {
		answer_ok($c, $mode, $method, $what, $query, $body);
	} elsif ($mode eq 'empty') {
		reply($c, 200, '{"query":"","results":[]}');
	} elsif ($mode eq 'shape') {
		reply($c, 200, $what =~ /embeddings/ ? '{"data":[{"embedding":"x"}]}' :
		    $what =~ /completions/ ? '{"choices":[]}' : '{"results":"none"}');
	} elsif ($mode eq 'garbage') {
		reply($c, 200, "<html>not json{", 'text/html');
	} elsif ($mode eq 'redirect') {
		reply($c, 302, '', undef, "Location: /ok$what");
	} elsif ($mode eq 'tofile') {
		reply($c, 302, '', undef, 'Location: file:///etc/passwd');
	} elsif ($mode eq 'badredirect') {
		reply($c, 302, '', undef, "Location: http://ex\e[31mample.test/\e]0;title\a");
	} elsif ($mode eq '500') {
		reply($c, 500, '{"error":"boom"}');
	} elsif ($mode eq '429') {
		reply($c, 429, '{"error":"slow down"}', undef, 'Retry-After: 1');
	} elsif ($mode eq 'hang') {
		# never answer; leave when the client hangs up
		1 while sysread $c, my $buf, 4096;
	} elsif ($mode eq 'reset') {
		setsockopt($c, SOL_SOCKET, SO_LINGER, pack('ii', 1, 0));
	} elsif ($mode eq 'slow') {
		my $text = '{"slow":"' . ('x' x 200) . '"}';
		print $c "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
		    "Content-Length: ", length($text), "\r\nConnection: close\r\n\r\n";
		$c->autoflush(1);
		for my $ch (split //, $text) {
			print $c $ch or last;
			select undef, undef, undef, 0.2;
		}
	} elsif ($mode eq 'truncated') {
		print $c "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
		    "Content-Length: 5000\r\nConnection: close\r\n\r\n", '{"data":[', 'x' x 91;
	} elsif ($mode eq 'oversized') {
		print $c "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
		    "Connection: close\r\n\r\n[";
		my $chunk = '"' . ('x' x 65533) . '",';
		for (1 .. 4096) { print $c $chunk or last }
	} else {
		reply($c, 404, '{"error":"no such path"}');
	}
}

while (1) {
	my $c = $srv->accept or next;
	my $pid = fork;
	if (defined $pid && $pid == 0) {
		close $srv;
		alarm($deadline > time ? $deadline - time : 1);
		handle($c);
		close $c;
		POSIX::_exit(0);
	}
	close $c;
}
