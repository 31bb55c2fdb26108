"""What long lists share: the very objects two versions share at their start and end, and a
list cut into hashed runs, found again by them."""
