#!/usr/bin/perl
# tests/event-server.pl PORT-FILE LOG-FILE DOCROOT [LIFETIME]: a canned HTTP
# server on 127.0.0.1 for the cc-event tests (perl-base only).  It binds an
# ephemeral port, writes the port to PORT-FILE, appends every request
# (request line and headers, one "== <time> <request line>" block each) to
# LOG-FILE, and exits by itself after LIFETIME seconds (default 120).
#
#   /files/NAME        DOCROOT/NAME with an ETag and Last-Modified;
#                      304 when If-None-Match matches
#   /flaky/NAME        like /files the first time, 500 afterwards
#   /redirect/NAME     302 to /files/NAME
#   /status/N          an empty answer with status N (429 adds Retry-After)
#   /hang              answers after 10 seconds
#   /truncated         promises 5000 bytes, sends 100 and closes
#   /huge              20 MB of calendar text, no Content-Length
#   /connpass/MODE/    connpass API v2: MODE ok (DOCROOT/connpass.json,
#                      401 without X-API-Key), 429, 500, bad, hang
use strict;
use warnings;
use IO::Socket::INET;
use POSIX ();

my ($port_file, $log_file, $docroot, $lifetime) = @ARGV;
die "usage: $0 PORT-FILE LOG-FILE DOCROOT [LIFETIME]\n" unless $docroot;
$lifetime ||= 120;

my $server = IO::Socket::INET->new(
	LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp',
	Listen => 16, ReuseAddr => 1) or die "event-server: cannot listen: $!\n";
$SIG{CHLD} = 'IGNORE';
$SIG{ALRM} = sub { exit 0 };
alarm $lifetime;

open my $pf, '>', "$port_file.tmp" or die "event-server: $port_file: $!\n";
print $pf $server->sockport, "\n";
close $pf;
rename "$port_file.tmp", $port_file or die "event-server: $port_file: $!\n";

my %seen;	# /flaky paths served once (kept in the parent)

sub respond {
	my ($c, $status, $headers, $body) = @_;
	$body //= '';
	my $text = { 200 => 'OK', 302 => 'Found', 304 => 'Not Modified',
	    401 => 'Unauthorized', 404 => 'Not Found', 429 => 'Too Many Requests',
	    500 => 'Internal Server Error' }->{$status} // 'Status';
	print $c "HTTP/1.1 $status $text\r\n";
	print $c "$_\r\n" for @$headers;
	print $c "Content-Length: " . length($body) . "\r\nConnection: close\r\n\r\n";
	print $c $body;
}

sub slurp {
	my ($path) = @_;
	open my $f, '<:raw', $path or return undef;
	local $/;
	my $s = <$f>;
	return $s;
}

sub serve_file {
	my ($c, $name, $req) = @_;
	my $body = slurp("$docroot/$name");
	return respond($c, 404, []) unless defined $body && $name !~ m{\.\.};
	my $etag = sprintf '"%x-%x"', length($body), unpack('%32C*', $body);
	if (($req->{'if-none-match'} // '') eq $etag) {
		return respond($c, 304, ["ETag: $etag"]);
	}
	respond($c, 200, ["ETag: $etag", 'Last-Modified: Wed, 01 Jan 2025 00:00:00 GMT',
	    'Content-Type: text/calendar; charset=utf-8'], $body);
}

sub handle {
	my ($c, $line, $req) = @_;
	my ($method, $target) = split / /, $line;
	my ($path) = split /\?/, $target // '/';

	if ($path =~ m{^/files/(.+)$}) {
		serve_file($c, $1, $req);
	} elsif ($path =~ m{^/flaky/(.+)$}) {
		if ($req->{first}) { serve_file($c, $1, {}) }
		else { respond($c, 500, []) }
	} elsif ($path =~ m{^/redirect/(.+)$}) {
		respond($c, 302, ["Location: /files/$1"]);
	} elsif ($path =~ m{^/status/(\d+)$}) {
		respond($c, $1, $1 == 429 ? ['Retry-After: 1'] : []);
	} elsif ($path eq '/hang' || $path =~ m{^/connpass/hang/}) {
		sleep 10;
		respond($c, 200, [], "late\n");
	} elsif ($path eq '/truncated') {
		print $c "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n";
		print $c "BEGIN:VCALENDAR\r\n", "X" x 83;
	} elsif ($path eq '/huge') {
		print $c "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nBEGIN:VCALENDAR\r\n";
		my $chunk = "X-FILLER:" . ("x" x 1000) . "\r\n";
		for (1 .. 20000) { print $c $chunk or last }
	} elsif ($path =~ m{^/connpass/(\w+)/$}) {
		my $mode = $1;
		if ($mode eq 'ok') {
			return respond($c, 401, [], '{"detail":"no key"}')
			    unless ($req->{'x-api-key'} // '') ne '';
			respond($c, 200, ['Content-Type: application/json'],
			    slurp("$docroot/connpass.json"));
		} elsif ($mode eq 'bad') {
			respond($c, 200, ['Content-Type: application/json'], '{"events": [{"title": ');
		} elsif ($mode =~ /^\d+$/) {
			respond($c, $mode, $mode == 429 ? ['Retry-After: 1'] : []);
		} else {
			respond($c, 404, []);
		}
	} else {
		respond($c, 404, []);
	}
}

while (1) {
	my $c = $server->accept or next;
	my $line = <$c>;
	next unless defined $line;
	$line =~ s/\r?\n$//;
	my %req;
	my $head = '';
	while (my $h = <$c>) {
		last if $h =~ /^\r?\n$/;
		$head .= $h;
		$req{lc $1} = $2 if $h =~ /^([^:]+):\s*(.*?)\r?\n$/;
	}
	my ($path) = split /\?/, (split / /, $line)[1] // '/';
	$req{first} = !$seen{$path}++;
	if (open my $log, '>>', $log_file) {
		print $log "== ", time, " $line\n$head";
		close $log;
	}
	my $pid = fork;
	if (defined $pid && $pid == 0) {
		$SIG{PIPE} = 'IGNORE';
		handle($c, $line, \%req);
		close $c;
		POSIX::_exit(0);
	}
	close $c;
}
