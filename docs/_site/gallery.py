"""Write the gallery page ``docs/gallery.md`` and its pictures ``docs/img/gallery/KIND.png``.

One picture of each kind of ``symq plot``, drawn by running the exact command shown under it (in
a temporary folder, as a reader would), so the page shows what the command writes.
``tests/test_docs_site.py`` runs this script into a temporary folder and checks that the page is
the committed one and that every registered kind has an entry; ``tests/test_docs.py`` runs the
commands of the page again, as it runs every console example.

Usage: ``python docs/_site/gallery.py`` (rewrites docs/gallery.md and docs/img/gallery/), or
``python docs/_site/gallery.py OUTDIR`` (writes OUTDIR/gallery.md and OUTDIR/img/gallery/).
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# rates that differ from class to class, so that no curve hides another
W = "--set lambda_1=1 --set lambda_2=1/2 --set lambda_3=1 --set mu_1=2 --set mu_2=3/2"

#: kind -> the command that draws its gallery picture
GALLERY = {
    "graph": "symq plot w graph",
    "load": f"symq plot w load {W} --points 8",
    "split": "symq plot w split --set lambda_1=3/20 --set lambda_2=1/10 --set lambda_3=1/4 "
             "--budget \"mu_1 + mu_2 = 9/5\" --points 24",
    "distribution": f"symq plot w distribution {W} --max-jobs 20",
    "response-time-survival": f"symq plot w response-time-survival --discipline alis {W}",
    "waiting-time-survival": f"symq plot w waiting-time-survival --discipline alis {W}",
    "clusters": "symq plot w clusters --set lambda_1=2 --set lambda_2=1/2 --set lambda_3=1 "
                "--set mu_1=1 --set mu_2=1",
    "heatmap": "symq plot sed heatmap --s 3 --q 2/5 --rho 9/10 --rhos 1/2,7/10 --size 8",
    "levels": "symq plot sed levels --s 2 --q 1/2 --rho 7/10",
    "disciplines": f"symq plot w disciplines {W} --points 8",
    "elasticities": f"symq plot w elasticities --discipline alis {W}",
    "response-time-load": f"symq plot w response-time-load --discipline alis {W} --points 8",
}

INTRO = """# Gallery

One picture of each kind that `symq plot` draws, with the exact command that drew it and what
the command printed. The values behind every picture are exact; they are rounded only to be drawn.
See [Pictures](pictures.md) for what each kind shows and how it is computed, and the
[command line](cli.md#plot) for every option. This page and its pictures are written by
`docs/_site/gallery.py`, which runs the commands below; the docs tests run it again.
"""


def build(out: Path) -> str:
    """Run every gallery command; write the pictures under ``out/img/gallery``; return the page."""
    from symq.cli import main
    from symq.presentation.pictures import kinds

    known = kinds()
    pictures = out / "img" / "gallery"
    pictures.mkdir(parents=True, exist_ok=True)
    parts = [INTRO]
    here = os.getcwd()
    for kind, command in GALLERY.items():
        with tempfile.TemporaryDirectory() as folder:
            os.chdir(folder)
            try:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    status = main(shlex.split(command)[1:] + ["--quiet"])
                if status != 0:
                    raise SystemExit(f"{command}: exit status {status}")
                line = printed.getvalue().strip()
                written = line.split("wrote ", 1)[1]
                shutil.copyfile(written, pictures / f"{kind}.png")
            finally:
                os.chdir(here)
        parts.append(f"## {kind}\n\n{known[kind].summary[0].upper()}{known[kind].summary[1:]}.\n\n"
                     f"![{kind}](img/gallery/{kind}.png)\n\n"
                     f"```console\n$ {command}\n{line}\n```\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs"
    text = build(out)
    (out / "gallery.md").write_text(text, encoding="utf-8")
    print(f"wrote {out / 'gallery.md'} and {len(GALLERY)} pictures under {out / 'img' / 'gallery'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
