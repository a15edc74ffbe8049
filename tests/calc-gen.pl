#!/usr/bin/perl
# tests/calc-gen.pl MODE [COUNT]: random cases, from a fixed seed, for
# tests/calc-property.test, with what an independent implementation
# (this file: perl's own arithmetic and number formatting, and number
# words spelt out here) expects.  One case a line, tab-separated:
#
#   eval    EXPRESSION  REPR  VALUE       (or "invalid" and the status)
#   number  TEXT        VALUE
#   words   UTTERANCE   EXPR  ANSWER
#   states  ANSWER      TEXT  0|1
#
# Expressions are printed from random trees with just the parentheses
# their structure needs, so perl's parser and ours must build the same
# tree; every sub-expression is evaluated by perl too, and a case whose
# intermediate values pass 2^50 is dropped (perl then computes exactly in
# integers where C rounds to doubles).
use strict;
use warnings;
use utf8;

binmode STDOUT, ':encoding(UTF-8)';
my ($mode, $count) = @ARGV;
$count ||= 3000;
srand(20250115);

sub pick { return $_[int(rand(@_))]; }

# ---- expressions ----

sub gen_num {
	my $r = rand;
	return int(rand(10)) if $r < 0.3;
	return int(rand(1000)) if $r < 0.6;
	return int(rand(100)) . '.' . sprintf('%02d', int(rand(100))) if $r < 0.8;
	return '.' . (1 + int(rand(9))) if $r < 0.9;
	return int(rand(100)) . '.' . int(rand(10));
}

sub gen {
	my ($d) = @_;
	my $r = rand;
	return ['n', gen_num()] if $d >= 4 || $r < 0.3;
	return ['neg', gen($d + 1)] if $r < 0.38;
	return ['(', gen($d + 1)] if $r < 0.45;
	return [pick(qw(+ - * /)), gen($d + 1), gen($d + 1)];
}

sub prec {
	my ($t) = @_;
	return 1 if $t->[0] eq '+' || $t->[0] eq '-';
	return 2 if $t->[0] eq '*' || $t->[0] eq '/';
	return 3;
}

# $left: the node begins the expression or a group, where a sign may stand
sub show {
	my ($t, $left) = @_;
	my $k = $t->[0];
	return $t->[1] if $k eq 'n';
	return '(' . show($t->[1], 1) . ')' if $k eq '(';
	if ($k eq 'neg') {
		my $c = $t->[1];
		my $in = prec($c) == 3 && $c->[0] ne 'neg' ? show($c, 0) : '(' . show($c, 1) . ')';
		return $left ? "-$in" : "(-$in)";
	}
	my ($l, $r) = ($t->[1], $t->[2]);
	my $ls = prec($l) < prec($t) ? '(' . show($l, 1) . ')' : show($l, $left);
	my $rs = prec($r) <= prec($t) && prec($r) < 3 ? '(' . show($r, 1) . ')' : show($r, 0);
	my $sp = pick('', ' ');
	return "$ls$sp$k$sp$rs";
}

sub subtrees {
	my ($t) = @_;
	return ($t) if $t->[0] eq 'n';
	return ($t, map { subtrees($_) } @{$t}[1 .. $#$t]);
}

# Python's repr() of a float, as the coach prints numbers
sub repr {
	my ($v) = @_;
	return '0' if $v == 0;
	return sprintf('%.0f', $v) if $v == int($v);
	for my $p (1 .. 17) {
		my $s = sprintf("%.${p}g", $v);
		return $s if $s == $v;
	}
	return sprintf('%.17g', $v);
}

my %wide = ('+' => ['＋'], '-' => ['－', '−'], '*' => ['×', '＊'], '/' => ['÷', '／'],
	'(' => ['（'], ')' => ['）'], ' ' => ['　'], '.' => ['．']);

sub widen {
	my ($s) = @_;
	return join '', map {
		rand() < 0.3 ? (/[0-9]/ ? chr(ord($_) + 0xFEE0) : $wide{$_} ? pick(@{$wide{$_}}) : $_) : $_
	} split //, $s;
}

sub perl_eval {
	my ($s) = @_;
	no warnings;
	my $v = eval $s;
	return defined $v ? $v : undef;
}

sub eval_cases {
	my $n = 0;
	while ($n < $count) {
		my $t = gen(0);
		my $s = show($t, 1);
		my $bad = 0;
		for my $sub (subtrees($t)) {
			my $v = perl_eval(show($sub, 1));
			$bad = 1 if defined $v && abs($v) > 2**50;
		}
		next if $bad;
		my $v = perl_eval($s);
		if (rand() < 0.2 && defined $v) {	# refused on purpose
			my @bad = (
				["$s +", 'syntax'], ["$s 3", 'syntax'], ["($s", 'syntax'],
				["$s)", 'syntax'], ["$s + 1.2.3", 'syntax'], ["$s + a", 'syntax'],
				["$s + * 3", 'syntax'], ["$s -- 3", 'syntax'], ["$s * -3", 'syntax'],
				["$s =", 'syntax'], ["${s}こ", 'syntax'], ["$s / 0", 'divzero'],
				["$s / (3-3)", 'divzero'],
			);
			my $c = pick(@bad);
			print widen($c->[0]), "\tinvalid\t$c->[1]\n";
		} elsif (!defined $v) {
			print widen($s), "\tinvalid\tdivzero\n";
		} elsif ($v != $v || $v == 9**9**9 || $v == -9**9**9) {
			print widen($s), "\tinvalid\trange\n";
		} else {
			print widen($s), "\t", repr($v), "\t", sprintf('%.17g', $v), "\n";
		}
		$n++;
	}
}

# ---- numbers in words, spelt out independently ----

my @kd = ('', qw(一 二 三 四 五 六 七 八 九));

sub kanji4 {
	my ($n) = @_;
	my $s = '';
	my @u = ([1000, '千'], [100, '百'], [10, '十']);
	for my $u (@u) {
		my $d = int($n / $u->[0]) % 10;
		$s .= ($d == 1 ? '' : $kd[$d]) . $u->[1] if $d;
	}
	return $s . $kd[$n % 10];
}

sub kanji {
	my ($n) = @_;
	return '〇' if $n == 0;
	my ($m, $r) = (int($n / 10000), $n % 10000);
	return ($m ? kanji4($m) . '万' : '') . ($r ? kanji4($r) : '');
}

my @ko = ('', 'いち', 'に', 'さん', 'よん', 'ご', 'ろく', 'なな', 'はち', 'きゅう');
my @ko_alt = ('', 'いち', 'に', 'さん', 'し', 'ご', 'ろく', 'しち', 'はち', 'く');
my @kt = ('', 'じゅう', 'にじゅう', 'さんじゅう', 'よんじゅう', 'ごじゅう', 'ろくじゅう',
	'ななじゅう', 'はちじゅう', 'きゅうじゅう');
my @kh = ('', 'ひゃく', 'にひゃく', 'さんびゃく', 'よんひゃく', 'ごひゃく', 'ろっぴゃく',
	'ななひゃく', 'はっぴゃく', 'きゅうひゃく');
my @ks = ('', 'せん', 'にせん', 'さんぜん', 'よんせん', 'ごせん', 'ろくせん', 'ななせん',
	'はっせん', 'きゅうせん');

sub kana4 {
	my ($n, $alt) = @_;
	my $ones = $n % 10;
	return $ks[int($n / 1000) % 10] . $kh[int($n / 100) % 10] . $kt[int($n / 10) % 10]
	    . ($alt && $n >= 10 ? $ko_alt[$ones] : $ko[$ones]);
}

sub kana {
	my ($n, $alt) = @_;
	return 'ぜろ' if $n == 0;
	my ($m, $r) = (int($n / 10000), $n % 10000);
	return ($m ? kana4($m, 0) . 'まん' : '') . ($r ? kana4($r, $alt) : '');
}

sub katakana {
	my ($s) = @_;
	$s =~ tr/ぁ-ゖ/ァ-ヶ/;
	return $s;
}

my @es = qw(zero one two three four five six seven eight nine ten eleven twelve
	thirteen fourteen fifteen sixteen seventeen eighteen nineteen);
my @et = ('', '', qw(twenty thirty forty fifty sixty seventy eighty ninety));

sub english3 {
	my ($n) = @_;
	my @w;
	push @w, $es[int($n / 100)], 'hundred' if $n >= 100;
	$n %= 100;
	push @w, 'and' if @w && $n && rand() < 0.5;
	if ($n >= 20) {
		push @w, $et[int($n / 10)] . ($n % 10 ? pick('-', ' ') . $es[$n % 10] : '');
	} elsif ($n || !@w) {
		push @w, $es[$n];
	}
	return join ' ', @w;
}

sub english {
	my ($n) = @_;
	return english3($n) if $n < 1000;
	my ($t, $r) = (int($n / 1000), $n % 1000);
	return english3($t) . ' thousand' . ($r ? ' ' . english3($r) : '');
}

sub grouped {
	my ($n) = @_;
	my $s = reverse $n;
	$s =~ s/(\d{3})(?=\d)/$1,/g;
	return scalar reverse $s;
}

sub random_value {
	my $r = rand;
	return int(rand(10)) if $r < 0.2;
	return 10 + int(rand(90)) if $r < 0.5;
	return 100 + int(rand(9900)) if $r < 0.8;
	return 10000 + int(rand(99_990_000));
}

# A random spelling of n: [text, kind]
sub spell {
	my ($n, @kinds) = @_;
	@kinds = qw(digits wide grouped kanji kana katakana english) unless @kinds;
	my $k = pick(@kinds);
	$k = 'digits' if $k eq 'english' && $n >= 1_000_000;
	return [$n, $k] if $k eq 'digits';
	return [join('', map { chr(ord($_) + 0xFEE0) } split //, $n), $k] if $k eq 'wide';
	return [grouped($n), $k] if $k eq 'grouped';
	return [kanji($n), $k] if $k eq 'kanji';
	return [kana($n, rand() < 0.3), $k] if $k eq 'kana';
	return [katakana(kana($n, 0)), $k] if $k eq 'katakana';
	return [english($n), $k];
}

sub number_cases {
	for (1 .. $count) {
		my $n = random_value();
		print spell($n)->[0], "\t$n\n";
	}
}

# ---- problems and answers in utterances ----

my %opwords = (
	'+' => [qw(+ ＋ たす たして 足す プラス)],
	'-' => [qw(- － ひく ひいて 引く マイナス)],
	'*' => [qw(* × かける かけて 掛ける)],
	'/' => [qw(/ ÷ わる わって 割る)],
);
my %en_op = ('+' => ['plus'], '-' => ['minus', 'take away'], '*' => ['times', 'x', 'multiplied by'],
	'/' => ['divided by']);

sub words_cases {
	for (1 .. $count) {
		my ($u, $expr, $answer);
		my $r = rand;
		if ($r < 0.1) {	# a 九九 line, read digit by digit
			my ($a, $b) = (1 + int(rand(9)), 1 + int(rand(9)));
			my $p = $a * $b + pick(0, 0, 0, 1, -1);
			$p = $a * $b if $p < ($a > $b ? $a : $b);
			$u = pick($ko[$a], $ko_alt[$a]) . pick($ko[$b], $ko_alt[$b]) . pick('', 'が') . kana($p, 0);
			$u = katakana($u) if rand() < 0.2;
			($expr, $answer) = ("$a*$b", $p);
		} else {
			my $op = pick(qw(+ - * /));
			my ($a, $b) = (1 + int(rand(999)), 1 + int(rand(999)));
			if ($r < 0.25) {
				$u = english($a) . ' ' . pick(@{$en_op{$op}}) . ' ' . english($b);
				$u = pick('', "what's ", 'what is ') . $u . pick('', '?', ' equals?');
			} else {
				my @kinds = qw(digits wide kanji kana katakana);
				my $w = pick(@{$opwords{$op}});
				# signs alone between plain digits, or the labels rule (3-2) applies
				$w = pick(@{$opwords{$op}}[2 .. $#{$opwords{$op}}]) if $w !~ /[+*×＋]/ && rand() < 0.5;
				$u = spell($a, @kinds)->[0] . pick('', ' ') . $w . pick('', ' ')
				    . spell($b, @kinds)->[0];
			}
			$expr = "$a$op$b";
			$answer = '';
			if ($r >= 0.25 && rand() < 0.4) {
				my $c = random_value() % 2000;
				$u .= pick('は', '=', ' = ') . spell($c, qw(digits wide kanji kana))->[0]
				    . pick('', 'です', 'だよ', 'かな？', 'だとおもう', '！');
				$answer = $c;
			} elsif ($r >= 0.25) {
				$u .= pick('', 'は？', 'はいくつ？', '=', ' = ?', 'はなに？');
			}
		}
		print "$u\t$expr\t$answer\n";
	}
}

# ---- the leak guard ----

my @before = ('こたえは', 'こたえは ', 'ぜんぶで ', '「', 'あわせて', '', 'The answer is ', 'じつは、');
my @after = ('だよ', 'です。', 'こ あるね', '」', '！', '', ' だね', 'になるよ');

sub states_cases {
	for (1 .. $count) {
		my $n = random_value() % 10_000_000;	# kanji() stops below 10^8
		my $say = rand() < 0.5;
		my $m = $n;
		my $text;
		if (!$say) {	# another number that holds n's digits or is next to it
			my $r = rand;
			$m = $n * 10 + int(rand(10)) if $r < 0.3;
			$m = (1 + int(rand(9))) * 10**length($n) + $n if $r >= 0.3 && $r < 0.6;
			$m = $n + 1 if $r >= 0.6 && $r < 0.8;
			$m = $n + 2 if $r >= 0.8;
			$m = $n + 1 if $m == $n;	# 0 with a 0 after it
		}
		my $sp = spell($m);
		$text = $sp->[0];
		if (!$say && $sp->[1] =~ /digits|wide/ && rand() < 0.3) {	# a decimal that starts with n
			$text = "$n." . (1 + int(rand(9)));
		}
		my $pre = pick(@before);
		$pre = 'The answer is ' if $sp->[1] eq 'english' && $pre ne '';
		my $post = $sp->[1] eq 'english' ? pick('', '.', '!') : pick(@after);
		print "$n\t$pre$text$post\t", ($say ? 1 : 0), "\n";
	}
}

my %run = (eval => \&eval_cases, number => \&number_cases, words => \&words_cases,
	states => \&states_cases);
die "usage: calc-gen.pl eval|number|words|states [COUNT]\n" unless $mode && $run{$mode};
$run{$mode}->();
