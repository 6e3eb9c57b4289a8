/* broken.c: a source that does not parse whole (tests/blame_index.sh): good() is indexed, bad()
 * has an error inside, and an undeclared name follows. */
int good(int a)
{
	int b = a + 1;
	return b;
}

int bad(int x)
{
	int y = x * 2
	return y;
}

int worse(void)
{
	return undeclared_thing;
}
