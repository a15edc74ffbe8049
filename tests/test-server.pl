# tests/test-server.pl: what the small HTTP servers of the tests share
# (llm-server.pl, frame-llm-server.pl, vision-server.pl require it): a
# socket on 127.0.0.1 at an ephemeral port, written to PORTFILE for the
# test to read; the request log; a bounded lifetime; JSON string quoting.
# perl-base only.
use strict;
use warnings;
use IO::Socket::INET;

# listen_local PORTFILE LOGFILE SECONDS: the listening socket and the log
# (appended to, unbuffered); the process exits after SECONDS, a backstop
# for a server its test failed to kill: the tests kill theirs when they
# end, so SECONDS is longer than any test takes on a loaded machine.
sub listen_local {
	my ($portfile, $logfile, $seconds) = @_;
	$SIG{PIPE} = 'IGNORE';
	$SIG{CHLD} = 'IGNORE';
	$SIG{ALRM} = sub { exit 0 };
	alarm $seconds;
	my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
	    Proto => 'tcp', Listen => 16, ReuseAddr => 1) or die "listen: $!";
	# written whole, then renamed: the test never reads half a number
	open my $pf, '>', "$portfile.tmp" or die;
	print $pf $srv->sockport, "\n";
	close $pf;
	rename "$portfile.tmp", $portfile or die;
	open my $log, '>>', $logfile or die;
	$log->autoflush(1);
	return ($srv, $log);
}

# json_string TEXT: TEXT as a JSON string, control characters escaped.
sub json_string {
	my $s = shift;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/([\x00-\x1f])/sprintf '\\u%04x', ord $1/ge;
	return "\"$s\"";
}

1;
