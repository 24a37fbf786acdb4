from autofix.cli import main

raise SystemExit(main())
