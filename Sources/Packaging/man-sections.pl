#!/usr/bin/perl
# man-sections.pl: one man page made by swift-argument-parser's generate-manual, in on standard input, out
# on standard output with its discussion laid out as mdoc. bin/package runs it on every page.
#
# The generator copies a command's `discussion` (its CommandConfiguration's, which `farm CMD --help` prints
# too) verbatim, as text lines, at the top of DESCRIPTION. farm writes its discussions in a plain layout
# that reads well in --help, and this filter turns that layout into mdoc, so the page and the help say the
# same from one source:
#
#   Text that starts at column 0              a paragraph; a blank line ends it
#   EXIT STATUS:                              a section (capitals and spaces, then a colon)
#     TERM                                    a tagged item (indented by two spaces) whose text follows
#         Text of the item, indented by 4+    on lines indented by four or more, joined
#     TERM  Text of the item                  an item and its text on one line (two spaces between)
#   a(1), b(7)                                in SEE ALSO: cross-references
#
# The text before the first section stays in DESCRIPTION, above the options the generator lists; the
# sections follow DESCRIPTION in the order written. A discussion's EXIT STATUS replaces the generator's
# (which says only "0 on success, >0 if an error occurs"), and its SEE ALSO comes first in the
# generator's (the subcommands' pages). A blank line ends a paragraph (.Pp): groff's mdoc warns of one in
# the page. Dies, failing the build, on a line it cannot place and on a blank line left in the page.
use strict;
use warnings;

my @page = <STDIN>;
chomp @page;

# The discussion: the text lines between `.Sh DESCRIPTION` and the first macro line after it.
my ($description) = grep { $page[$_] eq '.Sh DESCRIPTION' } 0 .. $#page;
unless (defined $description) { print "$_\n" for @page; exit 0; }
my $end = $description + 1;
$end++ while $end <= $#page && $page[$end] !~ /^\./;
my @discussion = @page[$description + 1 .. $end - 1];
# The rest of DESCRIPTION (the options), then the generator's other sections by title.
my $next = $end;
$next++ while $next <= $#page && $page[$next] !~ /^\.Sh /;
my @options = @page[$end .. $next - 1];
my (@generated, %generated);
for my $line (@page[$next .. $#page]) {
    if ($line =~ /^\.Sh "?([^"]+)"?$/) { push @generated, $1; $generated{$1} = []; next; }
    push @{ $generated{$generated[-1]} }, $line;
}

# The discussion as sections (the first, untitled, is DESCRIPTION's) of blocks: paragraphs and lists.
my @sections = ({ title => '', blocks => [] });
my $open;  # the block lines are being added to: a paragraph or a list; undef after a blank line
for my $line (@discussion) {
    my $blocks = $sections[-1]{blocks};
    if ($line =~ /^\s*$/) {
        undef $open;
    } elsif ($line =~ /^([A-Z][A-Z ]*[A-Z]):$/) {
        push @sections, { title => $1, blocks => [] };
        undef $open;
    } elsif ($line =~ /^  (\S.*)$/) {
        my ($term, $text) = split /\s{2,}/, $1, 2;
        push @$blocks, ($open = { list => [] }) unless $open && $open->{list};
        push @{ $open->{list} }, { term => $term, text => $text // '', inline => defined $text };
    } elsif ($line =~ /^ {4,}(\S.*)$/) {
        die "man-sections: text indented by four with no item above it: $line\n" unless $open && $open->{list};
        my $item = $open->{list}[-1];
        $item->{text} .= ($item->{text} eq '' ? '' : ' ') . $1;
    } elsif ($line =~ /^\S/) {
        push @$blocks, ($open = { paragraph => [] }) unless $open && $open->{paragraph};
        push @{ $open->{paragraph} }, $line;
    } else {
        die "man-sections: a line indented by one or three spaces, neither text nor item: $line\n";
    }
}

# A text line as mdoc reads it: one that starts with a dot or an apostrophe would be a request.
sub text { my ($line) = @_; $line =~ s/^([.'])/\\&$1/; return $line; }
# One argument of a macro: quoted (so that no word of it is taken for a macro), its quotes escaped.
sub argument { my ($text) = @_; $text =~ s/"/\\(dq/g; return "\"$text\""; }

sub blocks {
    my ($section) = @_;
    my @out;
    my $previous = '';
    for my $block (@{ $section->{blocks} }) {
        if ($block->{paragraph}) {
            push @out, '.Pp' if $previous;
            if ($section->{title} eq 'SEE ALSO') {
                # "farm(1), curl(1)": one .Xr each, commas between.
                my @references = join(' ', @{ $block->{paragraph} }) =~ /([\w.@-]+)\((\d\w*)\)/g;
                while (my ($name, $number) = splice @references, 0, 2) {
                    push @out, ".Xr $name $number" . (@references ? ' ,' : '');
                }
            } else {
                push @out, map { text($_) } @{ $block->{paragraph} };
            }
            $previous = 'paragraph';
        } else {
            # A table (every item on one line) has a line a row, its text in a column beside its widest
            # term; other lists have a line between items, and each term on a line of its own when it is
            # wider than the indent, as in git's pages.
            my @items = @{ $block->{list} };
            my $table = !grep { !$_->{inline} } @items;
            my $widest = 0;
            for (@items) { $widest = length $_->{term} if length $_->{term} > $widest; }
            # (A list has space above it, but for a compact one.)
            push @out, '.Pp' if $table && $previous;
            push @out, '.Bl -tag -width ' . ($table ? ($widest + 2) . 'n -compact' : 'Ds');
            for my $item (@items) {
                push @out, '.It ' . argument($item->{term});
                push @out, text($item->{text}) if $item->{text} ne '';
            }
            push @out, '.El';
            $previous = 'list';
        }
    }
    return @out;
}

my @out = @page[0 .. $description];
my ($intro, @titled) = @sections;
push @out, blocks($intro), @options;
my %written = map { $_->{title} => $_ } @titled;
for my $section (@titled) {
    next if $section->{title} eq 'SEE ALSO' && $generated{'SEE ALSO'};
    push @out, ($section->{title} =~ / / ? ".Sh \"$section->{title}\"" : ".Sh $section->{title}"), blocks($section);
}
for my $title (@generated) {
    next if $written{$title} && $title ne 'SEE ALSO';
    my @body = @{ $generated{$title} };
    next if !@body && !$written{$title};
    push @out, ($title =~ / / ? ".Sh \"$title\"" : ".Sh $title");
    if ($written{$title}) {
        my @ours = blocks($written{$title});
        # The subcommands' references go on after ours.
        $ours[-1] .= ' ,' if @ours && @body && $ours[-1] =~ /^\.Xr [^,]+$/;
        push @out, @ours;
    }
    push @out, @body;
}
# groff's mdoc warns of every blank line (lintian's groff-message); an option's help with one is a mistake
# to fix there.
for (@out) { die "man-sections: a blank line in the page (in an option's help?)\n" if /^\s*$/; }
print "$_\n" for @out;
